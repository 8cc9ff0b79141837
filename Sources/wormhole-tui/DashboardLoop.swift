import Dashboard
import Dispatch
import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import MailboxWatcher
import TerminalBackend
import TerminalInput
import TerminalScreen
import TerminalTheme
import Wormhole

/// The dashboard's one loop: it owns the state. Keys, resizes, signals, timers, the watcher's
/// events and the results of effects all arrive here as messages and go through
/// ``DashboardState/update(_:)``; the effects it returns run here or on the effects queue and
/// report back through the inbox. Frames are drawn at most every ``frameMilliseconds``.
final class DashboardLoop {
  /// Redraws are coalesced to this interval under floods.
  static let frameMilliseconds: Int64 = 33

  private var state: DashboardState
  private let terminal: Terminal
  private let watcher: MailboxWatcher
  private let inbox: DashboardInbox
  private let themes: ThemeCatalog
  /// The theme as loaded (its colours as written) and as drawn (reduced to the terminal).
  private var loadedTheme: Theme
  private var theme: Theme
  private let themeProblem: String?
  private let operations = MailboxOperations()
  private let effectQueue = DispatchQueue(label: "wormhole.dashboard.effects")
  private let watcherQueue = DispatchQueue(label: "wormhole.dashboard.watcher")
  private var wakeTimes: [Int64] = []
  private var lastFrame: Int64 = 0
  private var needsFrame = true

  init(
    roots: [WatchRoot], readOnly: Bool, themes: ThemeCatalog, theme: Theme, themeProblem: String?, mouse: Bool
  ) throws(CommandError) {
    inbox = try DashboardInbox()
    let inbox = inbox
    do {
      watcher = try MailboxWatcher(roots: roots, queue: watcherQueue) { events in
        inbox.post(.modelEvents(events, at: DashboardLoop.now()))
      }
    } catch {
      throw .failure("\(error.description) (name an existing ROOT, or use --home, --group or --container)")
    }
    terminal = Terminal()
    self.themes = themes
    self.loadedTheme = theme
    self.theme = theme
    self.themeProblem = themeProblem
    state = DashboardState(
      model: ModelState(inspector: KeyedArchiveInspector()), rootPaths: roots.map(\.path.lossyText), width: 0,
      height: 0,
      now: DashboardLoop.now(),
      isReadOnly: readOnly, themeName: theme.name)
    self.mouse = mouse
  }

  private let mouse: Bool

  /// Runs until the operator quits or a signal ends it; the terminal is restored on every path.
  func run() throws(CommandError) -> ExitCode {
    do {
      try terminal.start()
    } catch {
      throw .failure(error.description)
    }
    defer { terminal.stop() }
    if mouse { terminal.enableMouse() }
    theme = loadedTheme.reduced(to: terminal.colorCapability)
    let watcher = watcher
    watcherQueue.sync { watcher.start() }
    apply(.resize(width: terminal.width, height: terminal.height))
    for message in inbox.take() { apply(message) }
    if let themeProblem {
      apply(.themeLoaded(name: theme.name, error: themeProblem + "; using " + theme.name))
    }
    draw()
    while !state.isQuitting {
      let now = DashboardLoop.now()
      var timeout = Int64(1000 - now % 1000)  // ages and the rate move once a second
      if let wake = wakeTimes.first { timeout = min(timeout, max(wake - now, 0)) }
      if needsFrame { timeout = min(timeout, max(lastFrame + Self.frameMilliseconds - now, 0)) }
      if let event = terminal.nextEvent(timeout: Int(timeout), wakingOn: inbox.readDescriptor) {
        switch event {
        case .key(let key): apply(.key(key))
        case .resize(let width, let height): apply(.resize(width: width, height: height))
        case .mouse(let mouse): apply(DashboardLoop.message(for: mouse, state: state))
        case .suspendResumed: terminal.redrawAll()
        case .interrupted(let signal):
          // The terminal first, then the clean-ups (the demo's home), then the signal's own end.
          terminal.stop()
          watcher.cancel()
          Termination.end(bySignal: signal)
        }
        // Take every key already typed before drawing, so keys stay responsive under floods.
        while let more = terminal.nextEvent(timeout: 0), case .key(let key) = more { apply(.key(key)) }
      }
      for message in inbox.take() { apply(message) }
      let after = DashboardLoop.now()
      if let wake = wakeTimes.first, wake <= after {
        wakeTimes.removeAll { $0 <= after }
        apply(.clock(after))
      } else if after / 1000 != now / 1000 {
        apply(.clock(after))
      }
      if needsFrame && after - lastFrame >= Self.frameMilliseconds { draw() }
    }
    watcher.cancel()
    effectQueue.sync {}
    return .success
  }

  private func draw() {
    terminal.draw(DashboardView.render(state), theme: theme)
    lastFrame = DashboardLoop.now()
    needsFrame = false
  }

  private func apply(_ message: DashboardMessage) {
    for effect in state.update(message) { perform(effect) }
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
    case .rescan: watcher.rescan()
    case .copyToClipboard(let text): terminal.copyToClipboard(text)
    case .loadTheme(let name):
      do throws(ThemeError) {
        let loaded = try themes.theme(name == "+next" ? themes.name(after: loadedTheme.name) : name)
        loadedTheme = loaded
        theme = loaded.reduced(to: terminal.colorCapability)
        terminal.redrawAll()
        apply(.themeLoaded(name: loaded.name, error: nil))
      } catch {
        apply(.themeLoaded(name: name, error: error.description))
      }
    case .pass, .clear, .clearAll, .replayVersion, .replayEntry:
      // Writes may wait on locks: off the loop, reported back through the inbox.
      let job = EffectJob(effect: effect, state: state)
      let operations = operations
      let inbox = inbox
      effectQueue.async {
        let (description, error) = job.run(with: operations)
        inbox.post(.effectFinished(description: description, error: error))
      }
    }
  }

  /// A press selects what is under it; the wheel scrolls the pane under it.
  static func message(for mouse: MouseEvent, state: DashboardState) -> DashboardMessage {
    switch mouse.kind {
    case .wheelUp: return .wheel(up: true, row: mouse.row, column: mouse.column)
    case .wheelDown: return .wheel(up: false, row: mouse.row, column: mouse.column)
    case .press: return .click(row: mouse.row, column: mouse.column)
    }
  }

  /// Milliseconds since 1970 from the real-time clock (the journal uses the same clock).
  static func now() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
  }
}

/// One write the dashboard asked for, with what it needs from the state captured.
struct EffectJob: Sendable {
  var effect: DashboardEffect
  var version: MailboxVersion?
  var entry: TrafficEntry?
  var state: ModelState?

  init(effect: DashboardEffect, state: DashboardState) {
    self.effect = effect
    switch effect {
    case .replayVersion(let directory, let identifier, let serial, _, _, _):
      version = state.model.mailbox(identifier, in: directory)?.version(serial: serial)
    case .replayEntry(let id, _, _, _):
      entry = state.model.trafficEntry(id)
      self.state = state.model
    default: break
    }
  }

  /// Does it; returns what was done and, when it failed, why.
  func run(with operations: MailboxOperations) -> (String, String?) {
    do {
      switch effect {
      case .pass(let directory, let identifier, let value, let transiting):
        let type = TransitingType(rawValue: transiting) ?? .file
        try operations.pass(value, identifier: identifier, directory: directory, transitingType: type)
        return ("passed \(identifier.displayField) (\(transiting))", nil)
      case .clear(let directory, let identifier):
        try operations.clear(identifier: identifier, directory: directory)
        return ("cleared \(identifier.displayField)", nil)
      case .clearAll(let directory):
        try operations.clearAll(directory: directory)
        return ("cleared every mailbox of \(directory.displayField)", nil)
      case .replayVersion(_, let identifier, _, let toDirectory, let toIdentifier, let transiting):
        guard let version else {
          return ("replay of \(identifier.displayField)", "that version is no longer kept")
        }
        try operations.replay(
          version, identifier: toIdentifier, directory: toDirectory,
          transitingType: TransitingType(rawValue: transiting) ?? .file)
        return ("replayed to \(toIdentifier.displayField)", nil)
      case .replayEntry(let id, let toDirectory, let toIdentifier, let transiting):
        guard let entry, let state else { return ("replay of entry \(id)", "that entry is no longer kept") }
        try operations.replay(
          entry, in: state, identifier: toIdentifier, directory: toDirectory,
          transitingType: TransitingType(rawValue: transiting) ?? .file)
        return ("replayed entry \(id) to \(toIdentifier.displayField)", nil)
      default:
        return ("", nil)
      }
    } catch {
      return ("operation", error.description)
    }
  }
}
