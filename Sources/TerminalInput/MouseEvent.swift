/// A mouse action at a cell of the screen (zero-based, like `Screen`'s rows and columns).
public struct MouseEvent: Sendable, Hashable {
  /// What the mouse did.
  public enum Kind: Sendable, Hashable {
    /// A button was pressed (the dashboard selects on press, as most terminal programs do).
    case press(MouseButton)
    case wheelUp
    case wheelDown
  }

  public var row: Int
  public var column: Int
  public var kind: Kind

  public init(row: Int, column: Int, kind: Kind) {
    self.row = row
    self.column = column
    self.kind = kind
  }
}

/// A mouse button.
public enum MouseButton: Sendable, Hashable {
  case left
  case middle
  case right
}
