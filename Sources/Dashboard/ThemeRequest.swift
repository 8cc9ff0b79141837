import ArchivedValues

/// Which theme ``DashboardEffect/loadTheme(_:)`` asks for.
public enum ThemeRequest: Sendable, Hashable, CustomStringConvertible {
  /// The theme after the one in use, in the catalog's order (`t`).
  case next
  /// A theme by name, or a theme file by path (`:theme NAME`).
  case named(String)

  public var description: String {
    switch self {
    case .next: return "next"
    case .named(let name): return DisplayText.field(name)
    }
  }
}
