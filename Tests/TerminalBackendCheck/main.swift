// Runs the terminal backend for TerminalBackendTests, inside a tmux pane: draws a small screen
// (a wide character, colours), shows the last event, and answers a few keys. Not installed.
//
// Usage: terminal-backend-check PID-FILE [stubborn]
//   `stubborn` ignores the first interrupt, to test that a second one still ends the process.
//   Keys: `c` copies "hello clipboard" through OSC 52, `m` turns mouse reporting on,
//   `w` writes to the wake pipe the loop also waits on (the next wait returns nil: "woken"),
//   `t` waits 30 ms for nothing ("timed out"), `q` quits normally, `x` calls exit(3) without stopping the terminal,
//   `n` swaps the wide title for a narrow one and back.
//   `e` shows a box of emoji sequences below (and moves its selection down a row each time),
//   Ctrl-L repaints everything (`Terminal.redrawAll()`).
//   A paste shows as "paste N bytes" and its text is written to `paste` beside PID-FILE;
//   CHECK_PASTE_LIMIT=N sets the most bytes a paste may have.
import Glibc
import TerminalBackend
import TerminalInput
import TerminalScreen
import TerminalTheme
import WakeSignal

let arguments = CommandLine.arguments
let stubborn = arguments.count > 2 && arguments[2] == "stubborn"

let theme = Theme(
  name: "check",
  styles: [
    "title": TextStyle(foreground: .ansi(1), attributes: [.bold]),
    "accent": TextStyle(foreground: .rgb(red: 0, green: 135, blue: 255), background: .ansi(7)),
  ])

let terminal = Terminal()
if let limit = getenv("CHECK_PASTE_LIMIT").flatMap({ Int(String(cString: $0)) }) {
  terminal.maximumPasteBytes = limit
}
do {
  try terminal.start()
} catch {
  print("terminal-backend-check: \(error)")
  exit(1)
}

if arguments.count > 1 {
  let pid = "\(getpid())\n"
  let file = fopen(arguments[1], "w")
  if let file {
    fputs(pid, file)
    fclose(file)
  }
}

let wake: WakePipe
do {
  wake = try WakePipe()
} catch {
  terminal.stop()
  print("terminal-backend-check: \(error)")
  exit(1)
}

var narrowTitle = false
/// The selected row of the emoji box, nil while it is hidden.
var emojiSelection: Int?

/// Rows whose clusters terminals size differently, each `LETTER CLUSTER NAME`.
nonisolated(unsafe) let emojiRows = [
  ("a", "👨‍👩‍👧", "family"), ("b", "🏳️‍🌈", "rainbow"), ("c", "🇫🇷", "flag"), ("d", "1️⃣", "keycap"),
  ("e", "❤️", "heart"), ("f", "👋🏽", "wave"), ("g", "漢", "plain wide"),
]

/// A box of `emojiRows` at `top`, 30 columns wide, row `selected` painted as selected.
func drawEmojiBox(into screen: inout Screen, top: Int, selected: Int) {
  let inner = 28
  screen.write("┌" + String(repeating: "─", count: inner) + "┐", row: top, column: 0, role: .plain)
  for (index, (letter, cluster, name)) in emojiRows.enumerated() {
    let row = top + 1 + index
    screen.write("│", row: row, column: 0, role: .plain)
    let role: StyleRole = index == selected ? "accent" : .plain
    screen.fill(Rect(x: 1, y: row, width: inner, height: 1), role: role)
    screen.write("\(letter) \(cluster) \(name)", row: row, column: 1, limit: inner, role: role)
    screen.write("│", row: row, column: inner + 1, role: .plain)
  }
  screen.write(
    "└" + String(repeating: "─", count: inner) + "┘", row: top + 1 + emojiRows.count, column: 0, role: .plain)
}

var lastEvent = "none"
var resumed = 0
var interrupts = 0

func frame(
  width: Int, height: Int, capability: ColorCapability, lastEvent: String, resumed: Int, interrupts: Int,
  narrowTitle: Bool, emojiSelection: Int?
) -> Screen {
  var screen = Screen(width: width, height: height)
  screen.write(narrowTitle ? "abcd narr" : "漢字 wide", row: 0, column: 0, role: "title")
  screen.write("colour", row: 0, column: 10, role: "accent")
  screen.write("event: \(lastEvent)", row: 1, column: 0, role: .plain)
  screen.write("size: \(width)x\(height)", row: 2, column: 0, role: .plain)
  screen.write("resumed: \(resumed) interrupts: \(interrupts)", row: 3, column: 0, role: .plain)
  let term = getenv("TERM").map { String(cString: $0) } ?? "unset"
  let noColor = getenv("NO_COLOR").map { String(cString: $0) } ?? "unset"
  screen.write("colours: \(capability) TERM=\(term) NO_COLOR=\(noColor)", row: 4, column: 0, role: .plain)
  if let emojiSelection { drawEmojiBox(into: &screen, top: 5, selected: emojiSelection) }
  return screen
}

while true {
  let screen = frame(
    width: terminal.width, height: terminal.height, capability: terminal.colorCapability,
    lastEvent: lastEvent,
    resumed: resumed, interrupts: interrupts, narrowTitle: narrowTitle, emojiSelection: emojiSelection)
  terminal.draw(screen, theme: theme)
  guard let event = terminal.nextEvent(timeout: -1, wakingOn: wake.readDescriptor) else {
    if wake.wait(milliseconds: 0) {
      wake.drain()
      lastEvent = "woken"
    }
    continue
  }
  switch event {
  case .key(.character("q")):
    terminal.stop()
    print("quit")
    exit(0)
  case .key(.character("c")):
    terminal.copyToClipboard("hello clipboard")
    lastEvent = "copied"
  case .key(.character("n")):
    narrowTitle.toggle()
    lastEvent = narrowTitle ? "narrow" : "wide"
  case .key(.character("x")):
    exit(3)
  case .key(.character("w")):
    wake.signal()
    lastEvent = "wrote"
  case .key(.character("t")):
    lastEvent = terminal.nextEvent(timeout: 30) == nil ? "timed out" : "an event"
  case .key(.character("e")):
    emojiSelection = emojiSelection.map { ($0 + 1) % emojiRows.count } ?? 0
    lastEvent = "emoji \(emojiSelection ?? 0)"
  case .key(.control("l")):
    terminal.redrawAll()
    lastEvent = "redrawn"
  case .key(.character("m")):
    terminal.enableMouse()
    lastEvent = "mouse on"
  case .key(let key):
    lastEvent = "key " + KeyNotation.text(for: key)
  case .paste(let text):
    if arguments.count > 1, let file = fopen(arguments[1] + ".paste", "w") {
      let bytes = Array(text.utf8)
      _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
      fclose(file)
    }
    lastEvent = "paste \(text.utf8.count) bytes"
  case .pasteTooLarge(let byteCount):
    lastEvent = "paste too large: \(byteCount) bytes"
  case .resize(let width, let height):
    lastEvent = "resize \(width)x\(height)"
  case .mouse(let mouse):
    let kind: String
    switch mouse.kind {
    case .press(let button): kind = "press \(button)"
    case .wheelUp: kind = "wheel up"
    case .wheelDown: kind = "wheel down"
    }
    lastEvent = "mouse \(kind) at \(mouse.row),\(mouse.column)"
  case .suspendResumed:
    resumed += 1
    lastEvent = "resumed"
  case .interrupted(let signal):
    interrupts += 1
    lastEvent = "interrupted \(signal)"
    if !stubborn { terminal.stopAndExit(reraising: signal) }
  }
}
