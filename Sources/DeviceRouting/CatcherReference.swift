import ArchivedValues

/// One catcher as a routing saw it: what it catches, its place among the router's catchers of
/// that kind at the time, its pattern and its label (a routes file's `FILE:LINE`).
public struct CatcherReference: Sendable, Hashable, CustomStringConvertible {
  /// What the catcher catches.
  public var kind: RouteKind
  /// Its place among the catchers of its kind when the routing ran, from 0, in registration order.
  public var index: Int
  /// Its pattern, as given.
  public var pattern: String
  /// Where it comes from, when it was registered with one (a routes file's `FILE:LINE`).
  public var label: String?

  public init(kind: RouteKind, index: Int, pattern: String, label: String? = nil) {
    self.kind = kind
    self.index = index
    self.pattern = pattern
    self.label = label
  }

  /// `catcher 0 "pattern"`, with ` (label)` when it has one; escaped for a terminal.
  public var description: String {
    var text = "catcher \(index) \(DisplayText.quoted(pattern))"
    if let label { text += " (\(DisplayText.escaped(label)))" }
    return text
  }
}
