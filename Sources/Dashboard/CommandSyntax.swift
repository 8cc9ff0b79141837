/// How a ``KeyBinding`` is named on the `:` command line, and what its arguments mean.
public struct CommandSyntax: Sendable {
  /// The names, the first one shown in help (`quit`, `q`).
  public var names: [String]
  /// The arguments as help writes them (`ID JSON`, `[TO-ID [TYPE]]`), empty for none.
  public var usage: String
  /// What help says the command does, when it says more than the key's line.
  public var help: String?
  /// Makes the action from the text after the name (trimmed); `nil`: the command takes no
  /// arguments and does what the binding's keys do.
  let parse: (@Sendable (String) -> Result<DashboardAction, CommandProblem>)?

  /// A command without arguments: it does what the binding's keys do.
  public init(_ names: String...) {
    self.names = names
    usage = ""
    help = nil
    parse = nil
  }

  /// A command with arguments, made into an action by `parse`.
  public init(
    _ names: [String], usage: String, help: String? = nil,
    parse: @escaping @Sendable (String) -> Result<DashboardAction, CommandProblem>
  ) {
    self.names = names
    self.usage = usage
    self.help = help
    self.parse = parse
  }

  /// How help writes the command: `:pass ID JSON`.
  public var synopsis: String {
    let name = names.map { ":" + $0 }.joined(separator: " ")
    return usage.isEmpty ? name : name + " " + usage
  }
}

/// Why a `:` command line was refused, in words for the status line (already escaped).
public struct CommandProblem: Error, Sendable, Hashable {
  public var message: String

  public init(_ message: String) { self.message = message }
}
