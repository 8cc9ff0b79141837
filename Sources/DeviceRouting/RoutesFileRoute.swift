/// One route of a routes file: `KIND PATTERN ACTION` on line ``line``.
public struct RoutesFileRoute: Sendable {
  /// What it catches.
  public var kind: RouteKind
  /// Its pattern, compiled.
  public var pattern: RoutePattern
  /// What it does with what it catches.
  public var action: RouteAction
  /// Its line in the file, from 1.
  public var line: Int
  /// `FILE:LINE`, the catcher's label in routing outcomes.
  public var label: String
}
