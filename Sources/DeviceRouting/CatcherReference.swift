import WormholeVocabulary

/// One catcher as a routing saw it: what it catches, its place among the router's catchers of
/// that kind at the time, its pattern and its label (a routes file's `FILE:LINE`).
public struct CatcherReference: Sendable, Hashable, NamedCatcher {
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
}
