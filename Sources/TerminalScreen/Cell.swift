/// One column of the screen: a grapheme cluster and the role it is painted with.
///
/// A wide character (two columns) is stored in its first cell; the second holds
/// ``continuation`` so that every row has exactly one cell per column.
public struct Cell: Sendable, Hashable {
  /// The grapheme cluster shown, `" "` for blank, `""` for the second half of a wide one.
  public var text: String
  public var role: StyleRole

  public init(_ text: String, role: StyleRole = .plain) {
    self.text = text
    self.role = role
  }

  /// A blank cell.
  public static let blank = Cell(" ")

  /// Whether this cell is the right half of a wide character.
  public var isContinuation: Bool { text.isEmpty }

  /// The right half of a wide character painted with `role`.
  public static func continuation(_ role: StyleRole) -> Cell { Cell("", role: role) }
}
