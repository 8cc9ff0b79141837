import TerminalScreen

/// A named set of styles by role.
///
/// Lookup falls back along the role's dotted path (`traffic.failed` -> `traffic` -> `default`),
/// so a theme names only what it wants to distinguish.
public struct Theme: Sendable, Hashable {
  public var name: String
  public var styles: [StyleRole: TextStyle]
  /// Roles the theme file says take their parent's style on purpose (`role = inherit`).
  public var inherited: Set<StyleRole>

  public init(name: String, styles: [StyleRole: TextStyle], inherited: Set<StyleRole> = []) {
    self.name = name
    self.styles = styles
    self.inherited = inherited
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

  /// Every role the dashboard paints; a theme file may give any of them and no other.
  ///
  /// A role a theme leaves out takes its parent's style (`list.selected.unfocused` ->
  /// `list.selected` -> `list` -> `default`). Add a role here before a view paints it.
  public static let knownRoles: [StyleRole] = [
    "default", "title", "border", "border.focused",
    "status", "status.notice", "status.error",
    "footer", "footer.key", "footer.disabled",
    "list", "list.selected", "list.selected.unfocused", "list.branch", "list.dim", "list.changed",
    "list.error",
    "list.polled",
    "traffic", "traffic.header", "traffic.passed", "traffic.notification", "traffic.cleared",
    "traffic.replayed",
    "traffic.unrecorded", "traffic.failed", "traffic.badge",
    "contents", "contents.key", "contents.string", "contents.number", "contents.class", "contents.reference",
    "contents.added", "contents.removed", "contents.changed",
    "sparkline",
    "form", "form.field", "form.field.focused", "form.error",
    "overlay", "overlay.key", "overlay.disabled",
    "too-small",
    "filter", "filter.error",
  ]

  /// The theme used when none loads: no colours, the few attributes that keep the dashboard
  /// usable (selection reversed, errors and keys bold). Shipped themes normally win over it.
  public static let fallback = Theme(
    name: "fallback",
    styles: [
      "default": .plain,
      "title": TextStyle(attributes: .bold),
      "border.focused": TextStyle(attributes: .bold),
      "status.error": TextStyle(attributes: [.bold, .reverse]),
      "footer.key": TextStyle(attributes: .bold),
      "footer.disabled": TextStyle(attributes: .dim),
      "list.selected": TextStyle(attributes: .reverse),
      "list.selected.unfocused": TextStyle(attributes: .underline),
      "list.dim": TextStyle(attributes: .dim),
      "list.error": TextStyle(attributes: .bold),
      "traffic.header": TextStyle(attributes: .bold),
      "traffic.failed": TextStyle(attributes: [.bold, .reverse]),
      "traffic.unrecorded": TextStyle(attributes: .underline),
      "traffic.badge": TextStyle(attributes: .reverse),
      "contents.added": TextStyle(attributes: .bold),
      "contents.removed": TextStyle(attributes: .dim),
      "contents.changed": TextStyle(attributes: .underline),
      "form.field.focused": TextStyle(attributes: .reverse),
      "form.error": TextStyle(attributes: .bold),
      "overlay.key": TextStyle(attributes: .bold),
      "overlay.disabled": TextStyle(attributes: .dim),
      "filter.error": TextStyle(attributes: .bold),
    ])
}
