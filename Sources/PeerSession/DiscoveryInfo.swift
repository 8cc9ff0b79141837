/// What an advertiser tells browsers about itself (`MCNearbyServiceAdvertiser.discoveryInfo`),
/// under Bonjour's TXT-record rules: each key not empty and without `=`, and each
/// `key=value` entry at most ``maximumEntryBytes`` bytes of UTF-8.
public struct DiscoveryInfo: Sendable, Hashable {
  /// The longest `key=value` entry, in UTF-8 bytes (a TXT record's string).
  public static let maximumEntryBytes = 255

  /// The entries.
  public let entries: [String: String]

  /// No entries.
  public init() { entries = [:] }

  /// The entries, or ``DiscoveryInfoError`` naming the first entry, in key order, that breaks a rule.
  public init(_ entries: [String: String]) throws(DiscoveryInfoError) {
    for key in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
      let value = entries[key] ?? ""
      if key.isEmpty { throw DiscoveryInfoError(key: key, reason: "the key is empty") }
      if key.utf8.contains(UInt8(ascii: "=")) {
        throw DiscoveryInfoError(key: key, reason: "the key contains '='")
      }
      let bytes = key.utf8.count + 1 + value.utf8.count
      if bytes > Self.maximumEntryBytes {
        throw DiscoveryInfoError(
          key: key, reason: "key=value is \(bytes) bytes; at most \(Self.maximumEntryBytes) are allowed")
      }
    }
    self.entries = entries
  }

  /// The entries in key order.
  public var sorted: [(key: String, value: String)] {
    entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
  }
}
