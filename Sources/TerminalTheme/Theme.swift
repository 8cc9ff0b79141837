import TerminalScreen

/// A named set of styles by role.
///
/// Lookup falls back along the role's dotted path (`traffic.failed` -> `traffic` -> `default`),
/// so a theme names only what it wants to distinguish.
public struct Theme: Sendable, Hashable {
  public var name: String
  public var styles: [StyleRole: TextStyle]

  public init(name: String, styles: [StyleRole: TextStyle]) {
    self.name = name
    self.styles = styles
  }

  /// The style for `role`, from the role itself or its nearest parent that has one.
  public func style(for role: StyleRole) -> TextStyle {
    var current: StyleRole? = role
    while let candidate = current {
      if let style = styles[candidate] { return style }
      current = candidate.parent
    }
    return .plain
  }
}
