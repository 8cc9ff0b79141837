/// What a cell means, not how it looks: `list.selected`, `traffic.failed`, `status.notice`.
///
/// Views paint roles; a ``Theme`` (TerminalTheme) turns each role into colours and attributes.
/// Snapshots record roles, so changing a theme does not change every snapshot. Roles are dotted
/// paths: a theme that has no style for `traffic.failed` uses `traffic`, then `default`.
public struct StyleRole: Sendable, Hashable, Comparable, ExpressibleByStringLiteral, CustomStringConvertible {
  /// The dotted name.
  public let name: String

  public init(_ name: String) { self.name = name }
  public init(stringLiteral value: String) { self.name = value }

  /// The role everything falls back to: the terminal's own colours, no attributes.
  public static let plain: StyleRole = "default"

  /// The role one level up (`traffic.failed` -> `traffic`), or ``plain`` at the top.
  public var parent: StyleRole? {
    if self == .plain { return nil }
    guard let dot = name.lastIndex(of: ".") else { return .plain }
    return StyleRole(String(name[..<dot]))
  }

  public var description: String { name }
  public static func < (left: StyleRole, right: StyleRole) -> Bool { left.name < right.name }
}
