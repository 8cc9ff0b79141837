/// What a route catches: a deep link (a URL opened on the device) or a push notification.
public enum RouteKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// A URL opened on the device (`wormhole-tui open-url`), matched on its whole string.
  case deepLink = "deep-link"
  /// A push notification (`wormhole-tui push`), matched on a string of its `aps` dictionary.
  case push = "push"

  /// The kind as a routes file and a traffic record spell it.
  public var description: String { rawValue }
}
