// Runs the terminal backend for TerminalBackendTests, inside a tmux pane: draws a small screen
// (a wide character, colours), shows the last event, and answers a few keys. Not installed.
//
// Usage: terminal-backend-check PID-FILE [stubborn]
//   `stubborn` ignores the first interrupt, to test that a second one still ends the process.
//   Keys: `c` copies "hello clipboard" through OSC 52, `m` turns mouse reporting on,
//   `w` writes to the wake pipe the loop also waits on (the next wait returns nil: "woken"),
//   `t` waits 30 ms for nothing ("timed out"), `q` quits normally, `x` calls exit(3) without stopping the terminal,
//   `n` swaps the wide title for a narrow one and back.
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
var lastEvent = "none"
var resumed = 0
var interrupts = 0

func frame(
  width: Int, height: Int, capability: ColorCapability, lastEvent: String, resumed: Int, interrupts: Int,
  narrowTitle: Bool
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
  return screen
}

while true {
  let screen = frame(
    width: terminal.width, height: terminal.height, capability: terminal.colorCapability,
    lastEvent: lastEvent,
    resumed: resumed, interrupts: interrupts, narrowTitle: narrowTitle)
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
  case .key(.character("m")):
    terminal.enableMouse()
    lastEvent = "mouse on"
  case .key(let key):
    lastEvent = "key " + KeyNotation.text(for: key)
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
