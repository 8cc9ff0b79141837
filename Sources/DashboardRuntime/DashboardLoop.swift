import Dashboard
import MailboxModel
import TerminalBackend
import TerminalInput
import TerminalScreen
import TerminalTheme
import WakeSignal

/// The dashboard's one loop: it owns the state. Keys, resizes, signals, timers, the source's
/// model events and the results of effects all arrive here as messages and go through
/// ``Dashboard/DashboardState/update(_:)``; the effects it returns run here (timers, the
/// clipboard, themes, a rescan) or on the executor, which reports back through the inbox.
/// Frames are drawn at most every ``frameMilliseconds``.
///
/// Everything outside is behind a narrow protocol: the terminal (``DashboardTerminal``), the
/// source of model events (``DashboardEventSource``), the executor (``DashboardEffectExecutor``)
/// and the clock (``DashboardClock``). The program gives it ncurses, the watcher and the
/// mailbox operations; tests give it ``InMemoryTerminal``, ``ScriptedEventSource`` and a
/// ``ManualClock`` and run this same loop.
public final class DashboardLoop {
  /// Redraws are coalesced to this interval under floods.
  public static let frameMilliseconds: Int64 = 33

  /// The state as of the last message (after ``run()``, as it ended).
  public private(set) var state: DashboardState
  private let terminal: any DashboardTerminal
  private let source: any DashboardEventSource
  private let messageSources: [any DashboardMessageSource]
  private let executor: any DashboardEffectExecutor
  private let clock: any DashboardClock
  private let inbox: DashboardInbox
  private let configuration: DashboardConfiguration
  /// The theme as loaded (its colours as written) and as drawn (reduced to the terminal).
  private var loadedTheme: Theme
  private var theme: Theme
  private var wakeTimes: [Int64] = []
  private var lastFrame: Int64 = 0
  private var needsFrame = true
  /// The versions the state wants decoded, as of the last message: the executor skips a
  /// decode whose version left it before its turn came.
  private let wantedDecodes = WantedDecodes()

  /// A loop over these parts; nothing starts until ``run()``. Give `executor` the same
  /// read-only setting as `configuration`. `messageSources` post further messages (the pairs
  /// of simulated devices, ``PairsSource``).
  public init(
    terminal: any DashboardTerminal, source: any DashboardEventSource, executor: any DashboardEffectExecutor,
    clock: any DashboardClock = SystemClock(), configuration: DashboardConfiguration,
    messageSources: [any DashboardMessageSource] = []
  ) throws(WakePipeError) {
    inbox = try DashboardInbox()
    self.terminal = terminal
    self.source = source
    self.messageSources = messageSources
    self.executor = executor
    self.clock = clock
    self.configuration = configuration
    loadedTheme = configuration.theme
    theme = configuration.theme
    state = DashboardState(
      model: ModelState(configuration: configuration.model),
      rootPaths: configuration.rootPaths, width: 0, height: 0, now: clock.now(),
      isReadOnly: configuration.isReadOnly, themeName: configuration.theme.name)
    if let deviceSet = configuration.deviceSet { state.showDeviceSet(deviceSet) }
    if let broker = configuration.broker {
      state.showFleet(broker: broker, historyDepth: configuration.model.historyDepth)
    }
  }

  /// Runs until the operator quits or a signal ends it; the terminal is restored on every path.
  /// After a quit, it returns once every effect started has finished.
  public func run() throws(TerminalError) -> DashboardExit {
    try terminal.start()
    defer { terminal.stop() }
    if configuration.mouse { terminal.enableMouse(true) }
    theme = loadedTheme.reduced(to: terminal.colorCapability)
    let inbox = inbox
    let clock = clock
    source.start { events in inbox.post(.modelEvents(events, at: clock.now())) }
    for messageSource in messageSources { messageSource.start { message in inbox.post(message) } }
    apply(.resize(width: terminal.width, height: terminal.height))
    for message in inbox.take() { apply(message) }
    // Every count so far (the state's starts at 0), and the sources learn that a loop applies.
    var fleetApplied = state.fleet.appliedMessageCount
    for messageSource in messageSources { messageSource.loopApplied(fleetMessages: fleetApplied) }
    draw()
    while !state.isQuitting {
      let now = clock.now()
      var timeout = Int64(1000 - now % 1000)  // ages and the rate move once a second
      if let wake = wakeTimes.first { timeout = min(timeout, max(wake - now, 0)) }
      if needsFrame { timeout = min(timeout, max(lastFrame + Self.frameMilliseconds - now, 0)) }
      // Broker messages wait to be applied: take the keys already typed, then the next slice.
      if state.isLoadingFleet { timeout = 0 }
      if let event = terminal.nextEvent(timeout: Int(timeout), wakingOn: inbox.wakeDescriptor) {
        // The state's clock is the key's: what a key schedules (a check when typing pauses)
        // counts from when it was typed, not from the last second's tick.
        apply(.clock(clock.now()))
        if let signal = handle(event) { return interrupted(by: signal) }
        // Take every event already there before drawing, so keys stay responsive under floods.
        while let more = terminal.nextEvent(timeout: 0, wakingOn: nil) {
          if let signal = handle(more) { return interrupted(by: signal) }
        }
      }
      for message in inbox.take() { apply(message) }
      if state.isLoadingFleet { apply(.fleet([], at: clock.now())) }
      if state.fleet.appliedMessageCount != fleetApplied {
        // A fleet shown anew counts from 0 again, its backlog gone: everything posted before
        // counts as applied (`Int.max` empties the sources' windows).
        let count = state.fleet.appliedMessageCount
        let more = count > fleetApplied ? count - fleetApplied : Int.max
        fleetApplied = count
        for messageSource in messageSources { messageSource.loopApplied(fleetMessages: more) }
      }
      let after = clock.now()
      if let wake = wakeTimes.first, wake <= after {
        wakeTimes.removeAll { $0 <= after }
        apply(.clock(after))
      } else if after / 1000 != now / 1000 {
        apply(.clock(after))
      }
      if needsFrame && after - lastFrame >= Self.frameMilliseconds { draw() }
    }
    source.cancel()
    for messageSource in messageSources { messageSource.cancel() }
    executor.waitUntilIdle()
    return .quit
  }

  /// One event from the terminal; the signal when it says the loop must end.
  private func handle(_ event: TerminalEvent) -> Int32? {
    switch event {
    case .key(let key): apply(.key(key))
    case .resize(let width, let height): apply(.resize(width: width, height: height))
    case .mouse(let mouse): apply(Self.message(for: mouse))
    case .paste(let text): apply(.paste(text))
    case .pasteTooLarge(let byteCount): apply(.pasteTooLarge(byteCount: byteCount))
    case .suspendResumed:
      terminal.redrawAll()
      needsFrame = true
    case .interrupted(let signal): return signal
    }
    return nil
  }

  /// The terminal first, then the source; the caller ends the process by the signal.
  private func interrupted(by signal: Int32) -> DashboardExit {
    terminal.stop()
    source.cancel()
    for messageSource in messageSources { messageSource.cancel() }
    return .interrupted(signal: signal)
  }

  private func draw() {
    terminal.draw(DashboardView.render(state), theme: theme)
    lastFrame = clock.now()
    needsFrame = false
  }

  private func apply(_ message: DashboardMessage) {
    let effects = state.update(message)
    wantedDecodes.set(state.decodedVersions.wanted)
    for effect in effects { perform(effect) }
    needsFrame = true
  }

  private func perform(_ effect: DashboardEffect) {
    switch effect {
    case .wake(let at):
      // Rounded up to the next 50 ms, so that a flood of changes (each ending a highlight
      // later) keeps a handful of wake-ups, not one per change.
      let rounded = (at + 49) / 50 * 50
      if !wakeTimes.contains(rounded) {
        wakeTimes.append(rounded)
        wakeTimes.sort()
      }
    case .quit: break  // the state says so; the loop ends
    case .rescan: source.rescan()
    case .copyToClipboard(let text): terminal.copyToClipboard(text)
    case .repaint:
      terminal.redrawAll()
      needsFrame = true
    case .loadTheme(let request): loadTheme(request)
    case .pass, .clear, .clearAll, .replayVersion, .replayEntry, .sessionSend, .route, .cancelTransfer,
      .answerInvitation, .peerSend, .peerCommand, .decode, .decodeRemote, .remoteWrite:
      // Writes may wait on locks, and a large version takes long to decode: off the loop,
      // reported back through the inbox.
      let inbox = inbox
      var job = EffectJob(effect: effect, model: state.model)
      if effect.verb == "decode" {
        let wanted = wantedDecodes
        job.isStillWanted = { wanted.contains($0) }
      }
      executor.execute(job) { inbox.post($0) }
    }
  }

  /// Loads the theme asked for. The next theme is the next in the catalog's order that loads:
  /// a broken user theme is said and passed over, so that `t` never sticks on it.
  private func loadTheme(_ request: ThemeRequest) {
    let themes = configuration.themes
    var candidates: [String]
    switch request {
    case .named(let named): candidates = [named]
    case .next:
      candidates = []
      var name = loadedTheme.name
      for _ in themes.availableNames() {
        name = themes.name(after: name)
        if name == loadedTheme.name { break }
        candidates.append(name)
      }
    }
    var failures: [String] = []
    for name in candidates {
      do throws(ThemeError) {
        let loaded = try themes.theme(name)
        loadedTheme = loaded
        theme = loaded.reduced(to: terminal.colorCapability)
        terminal.redrawAll()
        apply(.themeLoaded(name: loaded.name, error: nil))
        for failure in failures { apply(.themeLoaded(name: loaded.name, error: "skipped, " + failure)) }
        return
      } catch {
        failures.append(error.description)
      }
    }
    apply(.themeLoaded(name: loadedTheme.name, error: failures.first ?? "no other theme to load"))
  }

  /// A press selects what is under it; the wheel scrolls the pane under it.
  static func message(for mouse: MouseEvent) -> DashboardMessage {
    switch mouse.kind {
    case .wheelUp: return .wheel(up: true, row: mouse.row, column: mouse.column)
    case .wheelDown: return .wheel(up: false, row: mouse.row, column: mouse.column)
    case .press: return .click(row: mouse.row, column: mouse.column)
    }
  }
}
