import TerminalInput

/// The one table of key bindings: the dispatcher, the `?` help and the footer all read it, so
/// they cannot disagree.
public enum Keymap {
  public static let bindings: [KeyBinding] = [
    KeyBinding([.character("?")], .help, help: "show or hide this help", footer: "help"),
    KeyBinding([.character("q"), .control("c")], .quit, help: "quit", footer: "quit"),
    KeyBinding([.escape], .back, help: "back out: close, cancel, clear the filter"),
    KeyBinding([.tab], .nextPane, help: "next pane"),
    KeyBinding([.backTab], .previousPane, help: "previous pane"),
    KeyBinding([.character("j"), .down], .down, help: "move down"),
    KeyBinding([.character("k"), .up], .up, help: "move up"),
    KeyBinding([.pageDown], .pageDown, help: "page down"),
    KeyBinding([.pageUp], .pageUp, help: "page up"),
    KeyBinding([.control("d")], .halfPageDown, help: "half a page down"),
    KeyBinding([.control("u")], .halfPageUp, help: "half a page up"),
    KeyBinding([.character("g"), .home], .top, help: "first row"),
    KeyBinding([.character("G"), .end], .bottom, help: "last row"),
    KeyBinding(
      [.enter], .toggle, panes: [.mailboxes, .contents], help: "expand or collapse", footer: "open"),
    KeyBinding(
      [.character("/")], .filter, panes: [.mailboxes, .traffic],
      help: "filter by regular expression (!re inverts)", footer: "filter"),
    KeyBinding(
      [.character(":")], .command,
      help: "command line (:pass ID JSON, :clear ID, :theme NAME, :sort ORDER, :q)"),
    KeyBinding([.character("p")], .pass, help: "pass a message", footer: "pass", writes: true),
    KeyBinding(
      [.character("d"), .delete], .clear, panes: [.mailboxes, .contents], help: "clear the selected mailbox",
      footer: "clear", writes: true),
    KeyBinding(
      [.character("D")], .clearAll, panes: [.mailboxes, .contents],
      help: "clear every mailbox of the directory",
      writes: true),
    KeyBinding(
      [.character("r")], .replay, panes: [.contents, .traffic],
      help: "replay the selected version or traffic entry", footer: "replay", writes: true),
    KeyBinding(
      [.character("s")], .sort, panes: [.mailboxes], help: "sort by name, recency, activity", footer: "sort"),
    KeyBinding(
      [.character("f")], .freeze, help: "freeze or resume (changes wait, counted)", footer: "freeze"),
    KeyBinding(
      [.character("y")], .copy, panes: [.mailboxes, .contents], help: "copy the value as JSON (OSC 52)"),
    KeyBinding([.character("t")], .cycleTheme, help: "next theme"),
    KeyBinding(
      [.character("v")], .nextView, panes: [.contents], help: "contents view: tree, JSON, hex, history, diff",
      footer: "view"),
    KeyBinding([.character("m")], .mark, panes: [.contents], help: "mark a history version to diff against"),
  ]

  /// The binding of `key` with the focus on `pane`.
  public static func binding(for key: Key, in pane: Pane) -> KeyBinding? {
    bindings.first { $0.keys.contains(key) && $0.applies(in: pane) }
  }

  /// How a key is written in help and the footer.
  public static func name(of key: Key) -> String {
    switch key {
    case .character(" "): return "Space"
    case .character(let character): return String(character)
    case .enter: return "Enter"
    case .escape: return "Esc"
    case .tab: return "Tab"
    case .backTab: return "S-Tab"
    case .up: return "↑"
    case .down: return "↓"
    case .left: return "←"
    case .right: return "→"
    case .pageUp: return "PgUp"
    case .pageDown: return "PgDn"
    case .home: return "Home"
    case .end: return "End"
    case .delete: return "Del"
    case .backspace: return "BS"
    case .insert: return "Ins"
    case .function(let number): return "F\(number)"
    case .control(let character): return "C-\(character)"
    }
  }
}
