import ArchivedValues
import TerminalInput
import WormholeVocabulary

/// The one table of key bindings and `:` commands: the dispatcher, the command line, the `?`
/// help and the footer all read it, so they cannot disagree.
public enum Keymap {
  public static let bindings: [KeyBinding] = [
    KeyBinding(
      [.character("?")], .help, help: "show or hide this help", footer: "help", command: .init("help")),
    KeyBinding(
      [.character("q"), .control("c")], .quit, help: "quit", footer: "quit", command: .init("quit", "q")),
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
      [.character("/")], .filter(nil), panes: [.mailboxes, .traffic],
      help: "filter by regular expression (!re inverts)", footer: "filter",
      command: CommandSyntax(["filter"], usage: "[RE]", help: "filter the focused pane; no RE clears it") {
        .success(.filter($0))
      }),
    KeyBinding([.character(":")], .command, help: "command line (the commands are listed below)"),
    KeyBinding(
      [.character("p")], .pass(nil), help: "pass a message", footer: "pass",
      command: CommandSyntax(
        ["pass"], usage: "[ID [JSON]]",
        help: "pass JSON (none: a notification) to ID in the selected directory; no ID opens the form",
        parse: parsePass),
      writes: true),
    KeyBinding(
      [.character("u")], .route, help: "push a notification to, or open a URL on, a pair's device or a peer",
      footer: "push", command: .init("push", "open-url"), writes: true),
    KeyBinding(
      [.character("a")], .answerInvitation(accepts: true), panes: [.mailboxes, .contents],
      help: "accept the selected peer's pending invitation", footer: "accept", command: .init("accept"),
      writes: true),
    KeyBinding(
      [.character("x")], .answerInvitation(accepts: false), panes: [.mailboxes, .contents],
      help: "decline the selected peer's pending invitation", footer: "decline", command: .init("decline"),
      writes: true),
    KeyBinding(
      [.character("S")], .peerSendUsage, panes: [.mailboxes, .contents],
      help: "send data from the selected peer to connected peers", footer: "send",
      command: CommandSyntax(
        ["peer-send"], usage: "TO MODE DATA",
        help:
          "send DATA (text, or @FILE for a file's bytes, at most 16 MiB) from the selected peer to TO[,TO...], MODE reliable or unreliable",
        parse: parsePeerSend),
      writes: true),
    KeyBinding(
      [.character("X")], .disconnectPeer, panes: [.mailboxes, .contents],
      help: "disconnect the selected peer from its session (the others see it leave)", footer: "disconnect",
      command: .init("peer-disconnect"), writes: true),
    KeyBinding(
      [.character("C")], .cancelPeerResource, panes: [.mailboxes, .contents],
      help: "cancel the selected peer's resource in flight (under the contents cursor)",
      footer: "cancel", command: .init("peer-cancel"), writes: true),
    KeyBinding(
      [.character("d"), .delete], .clear(nil), panes: [.mailboxes, .contents],
      help: "clear the selected mailbox", footer: "clear",
      command: CommandSyntax(
        ["clear"], usage: "[ID]", help: "clear ID (or the selected mailbox) in the selected directory"
      ) { .success(.clear($0.isEmpty ? nil : $0)) },
      writes: true),
    KeyBinding(
      [.character("D")], .clearAll, panes: [.mailboxes, .contents],
      help: "clear every mailbox of the directory", footer: "clear all", command: .init("clear-all"),
      writes: true),
    KeyBinding(
      [.character("r")], .replay(.init()), panes: [.contents, .traffic],
      help: "replay the selected version or traffic entry", footer: "replay",
      command: CommandSyntax(
        ["replay"], usage: "[TO-ID [TYPE]]",
        help: "open the replay form with TO-ID and the transiting TYPE filled in", parse: parseReplay),
      writes: true),
    KeyBinding(
      [.character("s")], .sort(nil), panes: [.mailboxes], help: "sort by name, recency, activity",
      footer: "sort",
      command: CommandSyntax(["sort"], usage: "ORDER", help: "sort by name, recency or activity") { text in
        guard let order = SortOrder(rawValue: text) else {
          return .failure(CommandProblem(":sort takes name, recency or activity"))
        }
        return .success(.sort(order))
      }),
    KeyBinding(
      [.character("f")], .freeze, help: "freeze or resume (changes wait, counted)", footer: "freeze",
      command: .init("freeze")),
    KeyBinding(
      [.character("y")], .copy, panes: [.mailboxes, .contents], help: "copy the value as JSON (OSC 52)",
      command: .init("copy")),
    KeyBinding(
      [.character("t")], .theme(.next), help: "next theme",
      command: CommandSyntax(["theme"], usage: "[NAME]", help: "load the theme NAME (a name or a path)") {
        .success(.theme($0.isEmpty ? .next : .named($0)))
      }),
    KeyBinding(
      [.character("v")], .nextView, panes: [.contents], help: "contents view: tree, JSON, hex, history, diff",
      footer: "view"),
    KeyBinding(
      [.character("m")], .mark, panes: [.contents], help: "mark a history version to diff against",
      footer: "mark"),
    KeyBinding(
      [.character("L")], .messages, help: "the message log: every recent result and error, in full",
      command: .init("messages")),
    KeyBinding(
      [.control("l")], .repaint, help: "repaint the whole screen", command: .init("repaint")),
  ]

  /// The binding of `key` with the focus on `pane`.
  public static func binding(for key: Key, in pane: Pane) -> KeyBinding? {
    bindings.first { $0.keys.contains(key) && $0.applies(in: pane) }
  }

  /// The binding a `:` command names.
  public static func binding(command name: String) -> KeyBinding? {
    bindings.first { $0.command?.names.contains(name) == true }
  }

  /// A `:` command line as the binding it names and the action it asks for, or why it cannot
  /// be run. `nil` for an empty line.
  public static func parse(commandLine line: String) -> Result<(KeyBinding, DashboardAction), CommandProblem>?
  {
    let (name, arguments) = splitFirstWord(line)
    guard !name.isEmpty else { return nil }
    guard let binding = binding(command: name), let command = binding.command else {
      return .failure(CommandProblem("unknown command :\(DisplayText.escaped(name)) (? lists the commands)"))
    }
    guard let parse = command.parse else {
      guard arguments.isEmpty else {
        return .failure(CommandProblem(":\(DisplayText.escaped(name)) takes no arguments"))
      }
      return .success((binding, binding.action))
    }
    return parse(arguments).map { (binding, $0) }
  }

  /// The first word of `text` and the rest, both without surrounding spaces.
  static func splitFirstWord(_ text: String) -> (String, String) {
    let trimmed = text.drop { $0 == " " }
    guard let space = trimmed.firstIndex(of: " ") else { return (String(trimmed), "") }
    let rest = trimmed[space...].drop { $0 == " " }
    return (String(trimmed[..<space]), String(rest.reversed().drop { $0 == " " }.reversed()))
  }

  @Sendable static func parsePeerSend(_ arguments: String) -> Result<DashboardAction, CommandProblem> {
    let (targets, rest) = splitFirstWord(arguments)
    let (mode, data) = splitFirstWord(rest)
    guard !targets.isEmpty, mode == "reliable" || mode == "unreliable" else {
      return .failure(CommandProblem(":peer-send takes TO[,TO...], reliable or unreliable, then the data"))
    }
    return .success(.peerSend(targets: targets, mode: mode, data: data))
  }

  @Sendable static func parsePass(_ arguments: String) -> Result<DashboardAction, CommandProblem> {
    guard !arguments.isEmpty else { return .success(.pass(nil)) }
    let (identifier, value) = splitFirstWord(arguments)
    return .success(.pass(DashboardAction.PassRequest(identifier: identifier, value: value)))
  }

  @Sendable static func parseReplay(_ arguments: String) -> Result<DashboardAction, CommandProblem> {
    let words = arguments.split(separator: " ").map(String.init)
    guard words.count <= 2 else {
      return .failure(
        CommandProblem(
          ":replay takes at most TO-ID and TYPE; \(words.count) words given (identifiers with spaces: use the form)"
        ))
    }
    var request = DashboardAction.ReplayRequest(identifier: words.first)
    if words.count == 2 {
      guard let type = TransitingType(rawValue: words[1]) else {
        return .failure(
          CommandProblem(
            "unknown transiting type \(DisplayText.field(words[1])); one of "
              + TransitingType.allCases.map(\.rawValue).joined(separator: ", ")))
      }
      request.transiting = type
    }
    return .success(.replay(request))
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
