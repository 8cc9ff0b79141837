import ArchivedValues

/// The display name of a peer (`MCPeerID.displayName`): a label, not an identity.
///
/// Not empty and at most ``maximumBytes`` bytes of UTF-8; any other text is allowed and escaped
/// wherever it is shown (``shown``). A longer name is refused, never truncated.
public struct PeerName: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The longest name, in UTF-8 bytes (`MCPeerID`'s limit).
  public static let maximumBytes = 63

  /// The name as given.
  public let text: String

  /// The name, or ``PeerNameError`` saying which rule `text` breaks.
  public init(_ text: String) throws(PeerNameError) { self.text = try Self.checked(text) }

  /// The rule `text` breaks, or `nil` when it can name a peer.
  public static func brokenRule(in text: String) -> Rule? {
    if text.isEmpty { return .empty }
    let bytes = text.utf8.count
    if bytes > maximumBytes { return .tooLong(bytes: bytes) }
    return nil
  }

  /// The name as a terminal may show it: one field, escaped with names' strength.
  public var shown: String { DisplayText.field(text) }

  public var description: String { shown }
}

/// A peer name that breaks a rule of ``PeerName``.
public typealias PeerNameError = TextRuleError<PeerName>

extension PeerName: RuledText {
  /// The rules of a peer name.
  public enum Rule: Sendable, Equatable {
    /// It is empty.
    case empty
    /// It is longer than 63 bytes of UTF-8.
    case tooLong(bytes: Int)
  }

  public static var noun: String { "peer name" }

  public static func reason(_ rule: Rule) -> String {
    switch rule {
    case .empty: return "it is empty; a peer name has at least one character"
    case .tooLong(let bytes):
      return "it is \(bytes) bytes of UTF-8; at most \(PeerName.maximumBytes) are allowed"
    }
  }
}
