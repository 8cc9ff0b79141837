import ArchivedValues

/// A peer name that breaks a rule of ``PeerName``. `text` is the raw input: the description
/// escapes it.
public struct PeerNameError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The rules of a peer name.
  public enum Rule: Sendable, Equatable {
    /// It is empty.
    case empty
    /// It is longer than 63 bytes of UTF-8.
    case tooLong(bytes: Int)
  }

  /// The refused name, as given (not escaped).
  public var text: String
  /// The rule it breaks.
  public var rule: Rule

  public init(text: String, rule: Rule) {
    self.text = text
    self.rule = rule
  }

  /// The rule in words.
  public var reason: String {
    switch rule {
    case .empty: return "it is empty; a peer name has at least one character"
    case .tooLong(let bytes):
      return "it is \(bytes) bytes of UTF-8; at most \(PeerName.maximumBytes) are allowed"
    }
  }

  public var description: String { "the peer name \(DisplayText.quoted(text)) is refused: \(reason)" }
}
