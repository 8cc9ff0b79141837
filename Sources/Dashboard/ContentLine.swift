import TerminalScreen

/// One line of the contents pane: pieces of text with their roles.
public struct ContentLine: Sendable, Hashable {
  /// Spaces before the first piece.
  public var indent: Int
  public var pieces: [Piece]
  /// The value's path for tree lines (`root.items[2].title`), used for collapsing and for the
  /// sparkline of a numeric field.
  public var path: String?
  /// Whether the line opens a branch that can be collapsed.
  public var isBranch = false
  public var isCollapsed = false
  /// The number shown, when the line's value is numeric.
  public var number: Double?

  public struct Piece: Sendable, Hashable {
    public var text: String
    public var role: StyleRole

    public init(_ text: String, _ role: StyleRole) {
      self.text = text
      self.role = role
    }
  }

  public init(indent: Int = 0, _ pieces: [Piece], path: String? = nil) {
    self.indent = indent
    self.pieces = pieces
    self.path = path
  }

  /// A line of one piece.
  public static func text(_ text: String, _ role: StyleRole = "contents") -> ContentLine {
    ContentLine([Piece(text, role)])
  }
}
