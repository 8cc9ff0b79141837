import ArchivedValues

/// A discovery-info entry that breaks a rule of ``DiscoveryInfo``.
public struct DiscoveryInfoError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The entry's key, as given (not escaped).
  public var key: String
  /// The rule it breaks, in words.
  public var reason: String

  public init(key: String, reason: String) {
    self.key = key
    self.reason = reason
  }

  public var description: String {
    "the discovery info entry \(DisplayText.quoted(key)) is refused: \(reason)"
  }
}
