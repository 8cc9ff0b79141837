import CNcursesw
import CTerminalSignals
import Foundation
import Glibc
import Synchronization
import TerminalInput
import TerminalScreen
import TerminalTheme

/// The terminal session: the only code that talks to ncurses.
///
/// One `Terminal` runs at a time, on one thread (the program's loop):
///
/// ```swift
/// let terminal = Terminal()
/// try terminal.start()
/// defer { terminal.stop() }
/// while true {
///   terminal.draw(view(state, terminal.width, terminal.height), theme: theme)
///   guard let event = terminal.nextEvent(timeout: -1, wakingOn: wakePipe) else { continue }
///   if case .interrupted(let signal) = event { terminal.stopAndExit(reraising: signal) }
///   ...
/// }
/// ```
///
/// **Waiting.** ``nextEvent(timeout:wakingOn:)`` blocks in `poll(2)` on the terminal, the
/// backend's signal pipe and, optionally, one more descriptor of the caller's (a wake pipe
/// written when the watcher has events): idle means blocked, never a busy loop. A loop that
/// polls on its own can poll ``pollDescriptors`` and then call `nextEvent(timeout: 0)` until it
/// returns nil.
///
/// **Signals.** SIGINT (Ctrl-C), SIGTERM and SIGHUP are reported as
/// ``TerminalEvent/interrupted(signal:)``: the loop stops the terminal and exits (see
/// ``stopAndExit(reraising:)``). A second one before the loop has stopped the terminal restores
/// it from the signal handler and ends the process. SIGTSTP (Ctrl-Z) puts the terminal back,
/// stops the process, and on SIGCONT re-enters it and reports ``TerminalEvent/suspendResumed``;
/// a SIGCONT after SIGSTOP does the same (the terminal's modes are set again, the screen
/// repainted).
/// SIGWINCH becomes one ``TerminalEvent/resize(width:height:)`` (ncurses' `KEY_RESIZE` is not
/// used). The crash signals (SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE) and `exit()` without
/// ``stop()`` write the reset sequences and restore the terminal's modes, then the crash signal
/// takes its default action. Signals other than SIGTSTP and SIGWINCH are handled the same way
/// before and after the loop runs, from ``start()`` to ``stop()``.
public final class Terminal {
  /// Columns of the terminal, as of the last start, resize or resume.
  public private(set) var width = 0
  /// Rows of the terminal, as of the last start, resize or resume.
  public private(set) var height = 0
  /// What the terminal shows: `.none` with `NO_COLOR` set or no colours, otherwise its
  /// description's colour count (`.truecolor` needs a direct-colour description such as
  /// `TERM=xterm-direct`; `COLORTERM` alone cannot make ncurses send 24-bit colours).
  public private(set) var colorCapability: ColorCapability = .none
  /// Whether the terminal is started and not yet stopped.
  public private(set) var isActive = false
  /// Whether mouse reporting is on.
  public private(set) var isMouseEnabled = false
  /// The most bytes of one paste delivered as ``TerminalEvent/paste(_:)``; a longer one is
  /// read, counted and dropped, and becomes ``TerminalEvent/pasteTooLarge(byteCount:)``.
  public var maximumPasteBytes = 16 << 20

  private var colorMode: ColorMode = .none
  private var screen: OpaquePointer?
  private var window: UnsafeMutablePointer<WINDOW>?
  private var input: UnsafeMutablePointer<FILE>?
  private var output: UnsafeMutablePointer<FILE>?
  private var terminalDescriptor: Int32 = -1
  private var signalPipe: (read: Int32, write: Int32) = (-1, -1)
  private var previous: Screen?
  private var lastTheme: Theme?
  private var styles: [StyleRole: (attributes: attr_t, pair: Int32)] = [:]
  private var pairs: [PairKey: Int32] = [:]
  private var nextPair: Int32 = 1
  private var queued: [TerminalEvent] = []
  private var hungUp = false
  /// The key code ncurses gives the start of a bracketed paste (`ESC [ 200 ~`), 0 when none.
  private var pasteStartKey: UInt32 = 0
  /// Signals taken from the handlers while a paste was read, for the next ``signalEvent()``.
  private var deferredSignals: Int32 = 0
  private var deferredInterrupt: Int32 = 0

  /// The key code asked of ncurses for the start of a bracketed paste: far above its own
  /// (`KEY_MAX` is 0o777) and the extended keys it numbers after them.
  static let pasteStartCode: Int32 = 0x7F00
  /// How long a paste may pause before what arrived is taken as the whole of it.
  static let pastePauseMilliseconds: Int32 = 500
  /// Bracketed paste on and off (xterm's mode 2004).
  static let bracketedPasteOn = Array("\u{1B}[?2004h".utf8)
  static let bracketedPasteOff = Array("\u{1B}[?2004l".utf8)

  private static let running = Atomic<Bool>(false)

  private struct PairKey: Hashable {
    var foreground: Int32
    var background: Int32
  }

  public init() {}

  deinit { stop() }

  /// The descriptors to poll for reading when the loop waits on its own: the terminal and the
  /// backend's signal pipe. When either is readable, call `nextEvent(timeout: 0)` until nil.
  public var pollDescriptors: [Int32] { isActive ? [terminalDescriptor, signalPipe.read] : [] }

  /// Takes over the terminal (`/dev/tty`, or standard input and output when there is none):
  /// the locale from the environment (UTF-8 forced for characters when it is not), cbreak mode
  /// without echo or flow control, keypad keys, a 25 ms escape delay, the alternate screen, no
  /// cursor, and colours unless `NO_COLOR` is set. Signal handlers are installed first, so that
  /// every exit path from here on puts the terminal back. The caller refuses `TERM=dumb`.
  public func start() throws(TerminalError) {
    guard !isActive else { throw .alreadyStarted }
    guard
      Terminal.running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing)
        .exchanged
    else { throw .alreadyStarted }
    do {
      try setUp()
    } catch {
      tearDown()
      Terminal.running.store(false, ordering: .releasing)
      throw error
    }
  }

  /// A stream of its own (`mode` `"r"` or `"w"`) on a duplicate of `descriptor`, so that
  /// ncurses' input and output close apart from the terminal descriptor.
  private static func stream(onCopyOf descriptor: Int32, mode: String) throws(TerminalError)
    -> UnsafeMutablePointer<FILE>
  {
    let copy = dup(descriptor)
    guard copy >= 0 else { throw .setupFailed(call: "dup", errno: errno) }
    guard let stream = fdopen(copy, mode) else {
      let error = errno
      close(copy)
      throw .setupFailed(call: "fdopen", errno: error)
    }
    return stream
  }

  private func setUp() throws(TerminalError) {
    var descriptor = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
    if descriptor < 0 {
      guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else { throw .noTerminal }
      descriptor = dup(STDOUT_FILENO)
      guard descriptor >= 0 else { throw .setupFailed(call: "dup", errno: errno) }
    }
    terminalDescriptor = descriptor
    var original = termios()
    guard tcgetattr(descriptor, &original) == 0 else { throw .noTerminal }

    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { throw .setupFailed(call: "pipe", errno: errno) }
    signalPipe = (ends[0], ends[1])
    for end in ends {
      _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
    guard terminal_signals_arm(descriptor, &original, ends[1]) == 0 else {
      throw .setupFailed(call: "sigaction", errno: errno)
    }

    setlocale(LC_ALL, "")
    if cnc_utf8_locale() == 0 { setlocale(LC_CTYPE, "C.UTF-8") }

    let output = try Self.stream(onCopyOf: descriptor, mode: "w")
    self.output = output
    let input = try Self.stream(onCopyOf: descriptor, mode: "r")
    self.input = input

    guard let screen = newterm(nil, output, input) else {
      throw .unknownTerminalType(getenv("TERM").map { String(cString: $0) })
    }
    self.screen = screen
    set_term(screen)
    isActive = true
    let window = cnc_standard_screen()
    self.window = window

    cbreak()
    noecho()
    nonl()
    intrflush(window, false)
    keypad(window, true)
    meta(window, true)
    set_escdelay(25)
    curs_set(0)
    leaveok(window, true)
    // Bracketed paste: the terminal marks pasted text, which is read in bulk (readPaste), not
    // key by key. A terminal without it ignores the request and sends the text as keys.
    let pasteStart = "\u{1B}[200~"
    let known = key_defined(pasteStart)
    if known > 0 {
      pasteStartKey = UInt32(known)
    } else if define_key(pasteStart, Terminal.pasteStartCode) != ERR {
      pasteStartKey = UInt32(Terminal.pasteStartCode)
    }
    if pasteStartKey != 0 { writeToTerminal(Terminal.bracketedPasteOn) }
    // cbreak leaves XON/XOFF on: Ctrl-S would freeze the screen. Turn it off and let ncurses
    // take these modes as the program's own (restored after a suspend).
    var modes = termios()
    if tcgetattr(descriptor, &modes) == 0 {
      modes.c_iflag &= ~tcflag_t(IXON)
      tcsetattr(descriptor, TCSANOW, &modes)
      def_prog_mode()
    }

    let noColor = getenv("NO_COLOR").map { String(cString: $0) }
    if has_colors(), noColor?.isEmpty ?? true {
      start_color()
      use_default_colors()
      colorMode = ColorMode.detect(colors: Int(cnc_colors()), noColor: noColor)
    } else {
      colorMode = .none
    }
    colorCapability = colorMode.capability
    updateSize()
    previous = nil
  }

  /// Puts the terminal back as it was (main screen, cursor visible, modes restored), removes
  /// the signal handlers and closes the descriptors. Safe to call more than once.
  public func stop() {
    guard isActive || terminalDescriptor >= 0 else { return }
    tearDown()
    Terminal.running.store(false, ordering: .releasing)
  }

  private func tearDown() {
    if isActive {
      if isMouseEnabled { mousemask(0, nil) }
      if pasteStartKey != 0 { writeToTerminal(Terminal.bracketedPasteOff) }
      curs_set(1)
      endwin()
    }
    terminal_signals_disarm()
    if let screen { delscreen(screen) }
    screen = nil
    window = nil
    isActive = false
    isMouseEnabled = false
    if let input { fclose(input) }
    if let output { fclose(output) }
    input = nil
    output = nil
    for descriptor in [terminalDescriptor, signalPipe.read, signalPipe.write] where descriptor >= 0 {
      close(descriptor)
    }
    terminalDescriptor = -1
    signalPipe = (-1, -1)
    previous = nil
    lastTheme = nil
    styles = [:]
    pairs = [:]
    nextPair = 1
    queued = []
    pasteStartKey = 0
    deferredSignals = 0
    deferredInterrupt = 0
  }

  /// Stops the terminal, then ends the process by `signal` with its default action (so the
  /// parent sees the signal, as if no handler had run). For ``TerminalEvent/interrupted(signal:)``.
  public func stopAndExit(reraising signal: Int32) -> Never {
    stop()
    SignalExit.reraise(signal)
  }

  /// Turns mouse reporting (press and wheel) on or off.
  public func enableMouse(_ enabled: Bool = true) {
    guard isActive else { return }
    mouseinterval(0)
    mousemask(mmask_t(truncatingIfNeeded: enabled ? Terminal.mouseDecoding.mask : 0), nil)
    isMouseEnabled = enabled
  }

  /// The mouse bits of the ncurses linked.
  static let mouseDecoding = MouseDecoding(
    leftPressed: UInt(cnc_button1_pressed()), middlePressed: UInt(cnc_button2_pressed()),
    rightPressed: UInt(cnc_button3_pressed()), wheelUp: UInt(cnc_button4_pressed()),
    wheelDown: UInt(cnc_button5_pressed()))

  /// Forgets what is on the terminal: the next ``draw(_:theme:)`` repaints every cell.
  public func redrawAll() {
    previous = nil
    if isActive { clearok(cnc_current_screen(), true) }
  }

  // MARK: Drawing

  /// Shows `screen`, writing only the cells that changed since the last draw (every cell after
  /// a start, resize, resume, theme change or ``redrawAll()``), with each cell's role styled
  /// by `theme`, then updates the terminal once. Cells outside the terminal are not drawn.
  public func draw(_ screen: Screen, theme: Theme) {
    guard isActive, let window else { return }
    if lastTheme != theme {
      styles = [:]
      lastTheme = theme
      previous = nil
    }
    for run in screen.changes(since: previous) {
      var column = run.column
      for cell in run.cells {
        defer { column += 1 }
        if cell.isContinuation { continue }
        let style = resolvedStyle(for: cell.role, theme: theme)
        // Written so that the terminal advances by exactly the cell's columns (CellText).
        let columns = column + 1 < screen.width && screen[run.row, column + 1].isContinuation ? 2 : 1
        for (offset, text) in CellText.drawn(cell.text, columns: columns).enumerated() {
          put(text, row: run.row, column: column + offset, style: style, window: window)
        }
      }
    }
    wnoutrefresh(window)
    doupdate()
    previous = screen
  }

  private func put(
    _ text: String, row: Int, column: Int, style: (attributes: attr_t, pair: Int32),
    window: UnsafeMutablePointer<WINDOW>
  ) {
    guard row < height, column < width, wmove(window, Int32(row), Int32(column)) != ERR else { return }
    var character = cchar_t()
    var pair = style.pair
    var scalars = Terminal.wideCharacters(of: text)
    if setcchar(&character, &scalars, style.attributes, 0, &pair) == ERR {
      var replacement: [wchar_t] = [0xFFFD, 0]
      setcchar(&character, &replacement, style.attributes, 0, &pair)
    }
    wadd_wchnstr(window, &character, 1)
  }

  /// The scalars of one cell's text for `setcchar`, zero-terminated: a control character
  /// becomes U+FFFD, and a cluster longer than ncurses holds keeps its first scalar, with the
  /// first marks after it when it is a character and combining marks (`DisplayText` escapes
  /// those past what a cell holds, so that is what a cluster from it holds).
  static func wideCharacters(of text: String) -> [wchar_t] {
    var scalars = text.unicodeScalars.map { wchar_t(bitPattern: $0.value) }
    if scalars.isEmpty { scalars = [0x20] }
    if text.unicodeScalars.contains(where: TerminalWidth.isControl(scalar:)) { scalars = [0xFFFD] }
    if scalars.count > Int(CCHARW_MAX) {
      let marksOnly = text.unicodeScalars.dropFirst().allSatisfy(TerminalWidth.isCombiningMark(scalar:))
      scalars = marksOnly ? Array(scalars.prefix(Int(CCHARW_MAX))) : [scalars[0]]
    }
    return scalars + [0]
  }

  private func resolvedStyle(for role: StyleRole, theme: Theme) -> (attributes: attr_t, pair: Int32) {
    if let known = styles[role] { return known }
    let style = theme.style(for: role)
    var attributes = cnc_attribute_normal()
    if style.attributes.contains(.bold) { attributes |= cnc_attribute_bold() }
    if style.attributes.contains(.dim) { attributes |= cnc_attribute_dim() }
    if style.attributes.contains(.italic) { attributes |= cnc_attribute_italic() }
    if style.attributes.contains(.underline) { attributes |= cnc_attribute_underline() }
    if style.attributes.contains(.reverse) { attributes |= cnc_attribute_reverse() }
    let key = PairKey(
      foreground: colorMode.number(for: style.foreground), background: colorMode.number(for: style.background)
    )
    let resolved = (attributes, pair(for: key))
    styles[role] = resolved
    return resolved
  }

  /// The colour pair for two colour numbers, made on first use. When the terminal has no pairs
  /// left, the default colours (pair 0) are used.
  private func pair(for key: PairKey) -> Int32 {
    if key.foreground == -1 && key.background == -1 { return 0 }
    if let known = pairs[key] { return known }
    guard nextPair < cnc_color_pairs(), init_extended_pair(nextPair, key.foreground, key.background) != ERR
    else { return 0 }
    pairs[key] = nextPair
    nextPair += 1
    return nextPair - 1
  }

  // MARK: Clipboard

  /// Asks the terminal to put `text` on the system clipboard (OSC 52), after the screen is up
  /// to date. Terminals that do not support it ignore it; tmux needs `set-clipboard on`.
  public func copyToClipboard(_ text: String) {
    guard isActive else { return }
    let sequence = "\u{1B}]52;c;" + Data(text.utf8).base64EncodedString() + "\u{07}"
    fflush(output)
    writeToTerminal(Array(sequence.utf8))
  }

  private func writeToTerminal(_ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes { write(terminalDescriptor, $0.baseAddress, $0.count) }
      if written < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        return
      }
      offset += written
    }
  }

  // MARK: Input

  /// The next event: a key, a mouse action, a resize, a resume after Ctrl-Z, or an interrupt.
  ///
  /// Blocks in `poll(2)` for at most `milliseconds` (negative: no limit; 0: only what is
  /// already there). Returns nil when the time is up, when `descriptor` (the caller's wake
  /// pipe, which the caller drains) became readable, or when the terminal is stopped.
  public func nextEvent(timeout milliseconds: Int, wakingOn descriptor: Int32? = nil) -> TerminalEvent? {
    let deadline = milliseconds < 0 ? nil : Terminal.now() + milliseconds
    while isActive {
      if !queued.isEmpty { return queued.removeFirst() }
      if let event = signalEvent() { return event }
      if let event = inputEvent() { return event }
      if hungUp { return .interrupted(signal: SIGHUP) }
      var descriptors = [
        pollfd(fd: terminalDescriptor, events: Int16(POLLIN), revents: 0),
        pollfd(fd: signalPipe.read, events: Int16(POLLIN), revents: 0),
      ]
      if let descriptor { descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
      let remaining = deadline.map { Int32(clamping: max($0 - Terminal.now(), 0)) } ?? -1
      let ready = poll(&descriptors, nfds_t(descriptors.count), remaining)
      if ready == 0 { return nil }
      if ready < 0 {
        if errno == EINTR { continue }
        return nil
      }
      if descriptors.count > 2, descriptors[2].revents != 0 { return nil }
      let terminalEvents = Int32(descriptors[0].revents)
      // A terminal that went away (its emulator closed, tmux killed) reports readable and hung
      // up at once, and reads end-of-file from then on: ending here, not only when nothing is
      // readable, is what keeps the loop from spinning on it.
      if terminalEvents & (POLLHUP | POLLERR | POLLNVAL) != 0 {
        hungUp = true
      }
    }
    return nil
  }

  private static func now() -> Int {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
  }

  /// Drains the signal pipe and turns what the handlers saw into an event.
  private func signalEvent() -> TerminalEvent? {
    var buffer = [UInt8](repeating: 0, count: 64)
    while read(signalPipe.read, &buffer, buffer.count) > 0 {}
    var taken: Int32 = 0
    let fresh = terminal_signals_take_pending(&taken)
    var interruptSignal = deferredInterrupt
    if fresh & Int32(TERMINAL_SIGNAL_INTERRUPT) != 0 { interruptSignal = taken }
    let pending = fresh | deferredSignals
    deferredSignals = 0
    deferredInterrupt = 0
    if pending & Int32(TERMINAL_SIGNAL_SUSPEND) != 0 {
      suspend()
      queued.append(.suspendResumed)
    } else if pending & Int32(TERMINAL_SIGNAL_CONTINUE) != 0 {
      resumeAfterForeignStop()
      queued.append(.suspendResumed)
    }
    if pending & Int32(TERMINAL_SIGNAL_RESIZE | TERMINAL_SIGNAL_SUSPEND | TERMINAL_SIGNAL_CONTINUE) != 0 {
      if updateSize() { queued.append(.resize(width: width, height: height)) }
    }
    if pending & Int32(TERMINAL_SIGNAL_INTERRUPT) != 0 {
      queued.insert(.interrupted(signal: interruptSignal), at: 0)
    }
    return queued.isEmpty ? nil : queued.removeFirst()
  }

  /// Ctrl-Z: the terminal put back, the process stopped; on SIGCONT the terminal taken again.
  private func suspend() {
    guard let window else { return }
    if isMouseEnabled { mousemask(0, nil) }
    if pasteStartKey != 0 { writeToTerminal(Terminal.bracketedPasteOff) }
    curs_set(1)
    endwin()
    terminal_signals_suspend_self()
    // Running again: the next refresh re-enters program mode; repaint everything.
    if pasteStartKey != 0 { writeToTerminal(Terminal.bracketedPasteOn) }
    curs_set(0)
    if isMouseEnabled { mousemask(mmask_t(truncatingIfNeeded: Terminal.mouseDecoding.mask), nil) }
    clearok(cnc_current_screen(), true)
    wnoutrefresh(window)
    doupdate()
    previous = nil
  }

  /// SIGCONT after a SIGSTOP the backend did not see coming: a job-control shell may have put
  /// its own modes on the terminal and written over the screen. Take the terminal again.
  private func resumeAfterForeignStop() {
    guard let window else { return }
    reset_prog_mode()
    if pasteStartKey != 0 { writeToTerminal(Terminal.bracketedPasteOn) }
    clearok(cnc_current_screen(), true)
    wnoutrefresh(window)
    doupdate()
    previous = nil
  }

  /// Reads the kernel's size for the terminal and resizes ncurses to it. Returns whether it
  /// changed; a change drops the previous frame.
  @discardableResult
  private func updateSize() -> Bool {
    var rows: Int32 = 0
    var columns: Int32 = 0
    if cnc_window_size(terminalDescriptor, &rows, &columns) != 0 || rows <= 0 || columns <= 0, let window {
      rows = cnc_rows(window)
      columns = cnc_columns(window)
    }
    guard Int(rows) != height || Int(columns) != width else { return false }
    // resize_term, not resizeterm: the latter queues a KEY_RESIZE, and resizes are reported once.
    resize_term(rows, columns)
    clearok(cnc_current_screen(), true)
    height = Int(rows)
    width = Int(columns)
    previous = nil
    return true
  }

  /// One key or mouse event ncurses already has or can read without waiting, or nil.
  private func inputEvent() -> TerminalEvent? {
    guard let window else { return nil }
    wtimeout(window, 0)
    while true {
      var code: wint_t = 0
      switch wget_wch(window, &code) {
      case OK:
        if let key = KeyDecoding.key(character: code) { return .key(key) }
      case KEY_CODE_YES:
        if code == KEY_MOUSE {
          var event = MEVENT()
          if getmouse(&event) == OK,
            let mouse = Terminal.mouseDecoding.event(
              state: UInt(event.bstate), x: Int(event.x), y: Int(event.y))
          {
            return .mouse(mouse)
          }
        } else if pasteStartKey != 0, code == pasteStartKey {
          return readPaste()
        } else if code != KEY_RESIZE, let key = KeyDecoding.key(functionKey: code) {
          return .key(key)
        }
      default:
        return nil
      }
    }
  }

  /// The rest of a bracketed paste, after ncurses read its start: read straight from the
  /// terminal in large chunks (ncurses reads one byte a call) up to the end marker. A paste that
  /// pauses longer than ``pastePauseMilliseconds``, or an interrupt, ends it with what arrived;
  /// bytes after the end marker go back to ncurses as keys.
  private func readPaste() -> TerminalEvent {
    var paste = BracketedPaste(limit: maximumPasteBytes)
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    reading: while !paste.isComplete {
      var descriptors = [
        pollfd(fd: terminalDescriptor, events: Int16(POLLIN), revents: 0),
        pollfd(fd: signalPipe.read, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&descriptors, 2, Terminal.pastePauseMilliseconds)
      if ready == 0 { break }
      if ready < 0 {
        if errno == EINTR { continue }
        break
      }
      if descriptors[1].revents != 0 {
        // Keep what the handlers saw for the next event; only an interrupt ends the paste.
        var drain = [UInt8](repeating: 0, count: 64)
        while read(signalPipe.read, &drain, drain.count) > 0 {}
        var taken: Int32 = 0
        let bits = terminal_signals_take_pending(&taken)
        if bits & Int32(TERMINAL_SIGNAL_INTERRUPT) != 0 { deferredInterrupt = taken }
        deferredSignals |= bits
        if bits & Int32(TERMINAL_SIGNAL_INTERRUPT) != 0 { break }
      }
      guard descriptors[0].revents != 0 else { continue }
      let count = read(terminalDescriptor, &buffer, buffer.count)
      switch count {
      case 0:
        hungUp = true
        break reading
      case ..<0:
        if errno == EINTR || errno == EAGAIN { continue }
        hungUp = true
        break reading
      default:
        paste.append(buffer[0..<count])
      }
    }
    // ncurses' queue is last in, first out: push back from the end.
    for byte in paste.leftover.reversed() {
      if ungetch(Int32(byte)) == ERR { break }
    }
    return paste.finish()
  }
}
