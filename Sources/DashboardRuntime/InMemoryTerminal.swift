import Glibc
import TerminalBackend
import TerminalInput
import TerminalScreen
import TerminalTheme
import WakeSignal

/// A terminal in memory, as ratatui's `TestBackend`: it records every screen the loop draws and
/// plays a script of events, so that tests run the real ``DashboardLoop`` without a terminal,
/// tmux or sleeps.
///
/// The script is a list of ``Step``s. Events are handed to the loop as if typed; a
/// ``Step/waitUntil(_:_:)`` holds the rest of the script back until the last drawn screen
/// satisfies it. While it waits, the loop's own timeouts pass on the ``ManualClock`` at once
/// (frames, ages, highlights), unless `isBusy` says work is under way off the loop (an
/// effect running): then it waits, for real, on the loop's wake pipe, which that work writes
/// to when it reports. A wait that never holds is recorded in ``failures`` and ends the loop,
/// as does a script that ran out (as a terminal that went away: SIGHUP).
public final class InMemoryTerminal: DashboardTerminal {
  /// One thing that happens to the terminal.
  public enum Step {
    /// The operator does something: a key, a resize, a click.
    case event(TerminalEvent)
    /// The rest waits until the last drawn screen satisfies the condition (described for
    /// failure messages).
    case waitUntil(String, (Screen) -> Bool)
    /// The rest waits until a frame is drawn after every event so far: the loop has answered
    /// them all (and taken what finished meanwhile).
    case waitForFrame
    /// Something happens outside, between two events (a batch from a scripted source, a write
    /// to disk); runs on the loop's thread.
    case perform(() -> Void)

    /// The keys of `notation` (``TerminalInput/KeyNotation``: `jj<Enter><C-u>`), one event each.
    public static func keys(_ notation: String) throws(KeyNotationError) -> [Step] {
      try KeyNotation.keys(from: notation).map { .event(.key($0)) }
    }

    /// Waits until some row of the screen contains `text`.
    public static func waitFor(_ text: String) -> Step {
      .waitUntil("a row containing \"\(text)\"") { screen in screen.lines.contains { $0.contains(text) } }
    }
  }

  public private(set) var width: Int
  public private(set) var height: Int
  public let colorCapability: ColorCapability
  /// Every screen drawn, oldest first.
  public private(set) var frames: [Screen] = []
  /// When each frame was drawn, in real (monotonic) milliseconds: for keystroke budgets.
  public private(set) var frameTimes: [Double] = []
  /// Each event handed to the loop, with when, in real (monotonic) milliseconds.
  public private(set) var deliveredEvents: [(event: TerminalEvent, time: Double)] = []
  /// What the loop put on the clipboard, oldest first.
  public private(set) var clipboard: [String] = []
  /// How many times the loop asked for a full repaint.
  public private(set) var redrawRequests = 0
  public private(set) var isActive = false
  public private(set) var isMouseEnabled = false
  /// How many times the loop started and stopped the terminal.
  public private(set) var starts = 0
  public private(set) var stops = 0
  /// Waits that never held, each with the screen as it was.
  public private(set) var failures: [String] = []
  /// Whether the script ran out while the loop was still waiting for events.
  public private(set) var ranOutOfScript = false
  /// How much time may pass on the clock in one wait before it fails (ten minutes).
  public var clockLimit: Int64 = 600_000
  /// How long one wait may last in real time while busy before it fails, in milliseconds.
  public var realTimeLimit: Double = 20_000

  private var script: [Step]
  private let clock: ManualClock
  private let isBusy: () -> Bool
  private var framesAtLastEvent = 0
  private var waitStartedOnClock: Int64?
  private var waitStartedInRealTime: Double?

  /// A `width` x `height` terminal showing `colorCapability`, on `clock`, playing `script`.
  /// `isBusy` tells whether work the loop started is still running off it.
  public init(
    width: Int = 100, height: Int = 30, colorCapability: ColorCapability = .none, clock: ManualClock,
    isBusy: @escaping () -> Bool = { false }, script: [Step] = []
  ) {
    self.width = width
    self.height = height
    self.colorCapability = colorCapability
    self.clock = clock
    self.isBusy = isBusy
    self.script = script
  }

  /// Adds `steps` at the end of the script.
  public func append(_ steps: [Step]) { script += steps }

  /// The last screen drawn.
  public var screen: Screen? { frames.last }

  /// The last screen's rows, for failure messages.
  public var screenText: String {
    (screen?.lines ?? []).map { "|" + $0 + "|" }.joined(separator: "\n")
  }

  public func start() throws(TerminalError) {
    guard !isActive else { throw .alreadyStarted }
    isActive = true
    starts += 1
  }

  public func stop() {
    guard isActive else { return }
    isActive = false
    isMouseEnabled = false
    stops += 1
  }

  public func enableMouse(_ enabled: Bool) { isMouseEnabled = enabled && isActive }

  public func draw(_ screen: Screen, theme: Theme) {
    guard isActive else { return }
    frames.append(screen)
    frameTimes.append(Self.realNow())
  }

  public func redrawAll() { redrawRequests += 1 }

  public func copyToClipboard(_ text: String) {
    guard isActive else { return }
    clipboard.append(text)
  }

  public func nextEvent(timeout milliseconds: Int, wakingOn descriptor: Int32?) -> TerminalEvent? {
    guard isActive else { return nil }
    while let step = script.first {
      switch step {
      case .event(let event):
        script.removeFirst()
        if case .resize(let width, let height) = event {
          self.width = width
          self.height = height
        }
        deliveredEvents.append((event, Self.realNow()))
        framesAtLastEvent = frames.count
        return event
      case .perform(let action):
        script.removeFirst()
        action()
      case .waitUntil(let description, let condition):
        if let screen, condition(screen) {
          finishWait()
          continue
        }
        return wait(milliseconds, on: descriptor, for: description)
      case .waitForFrame:
        if frames.count > framesAtLastEvent {
          finishWait()
          continue
        }
        return wait(milliseconds, on: descriptor, for: "a frame after the last event")
      }
    }
    // Nothing more will happen: the loop drains with 0, and waiting for more means it ran out.
    guard milliseconds != 0 else { return nil }
    ranOutOfScript = true
    return .interrupted(signal: SIGHUP)
  }

  private func finishWait() {
    script.removeFirst()
    waitStartedOnClock = nil
    waitStartedInRealTime = nil
  }

  /// The loop waits for `milliseconds` while the script waits for `description`.
  private func wait(_ milliseconds: Int, on descriptor: Int32?, for description: String) -> TerminalEvent? {
    if let descriptor, WakePipe.isReadable(descriptor, waiting: 0) { return nil }
    guard milliseconds != 0 else { return nil }
    let span = Int64(milliseconds < 0 ? 1000 : milliseconds)
    if isBusy() {
      let started = waitStartedInRealTime ?? Self.realNow()
      waitStartedInRealTime = started
      guard Self.realNow() - started < realTimeLimit else { return fail(description) }
      if let descriptor, WakePipe.isReadable(descriptor, waiting: Int32(clamping: span)) { return nil }
      clock.advance(by: span)
      return nil
    }
    let started = waitStartedOnClock ?? clock.now()
    waitStartedOnClock = started
    guard clock.now() - started < clockLimit else { return fail(description) }
    clock.advance(by: span)
    return nil
  }

  private func fail(_ description: String) -> TerminalEvent {
    failures.append("waited in vain for \(description); the screen shows:\n\(screenText)")
    script = []
    return .interrupted(signal: SIGHUP)
  }

  /// Real monotonic milliseconds.
  static func realNow() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1_000_000
  }
}
