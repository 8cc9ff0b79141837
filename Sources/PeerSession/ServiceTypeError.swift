import ArchivedValues

/// A service type that breaks a rule of ``ServiceType``. `text` is the raw input: the
/// description escapes it.
public struct ServiceTypeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The rules of a Bonjour service type.
  public enum Rule: Sendable, Equatable {
    /// It is empty.
    case empty
    /// It is longer than 15 characters.
    case tooLong(characters: Int)
    /// It holds a character other than an ASCII lowercase letter, a digit or a hyphen.
    case character(Unicode.Scalar)
    /// It has no letter (digits and hyphens only).
    case noLetter
    /// It starts or ends with a hyphen.
    case hyphenAtEnd
    /// Two hyphens are next to each other.
    case adjacentHyphens
  }

  /// The refused text, as given (not escaped).
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
    case .empty: return "it is empty; a service type has 1 to 15 characters"
    case .tooLong(let characters):
      return "it is \(characters) characters long; at most \(ServiceType.maximumLength) are allowed"
    case .character(let scalar):
      return
        "it contains \(DisplayText.quoted(String(Character(scalar)))); only ASCII lowercase letters, digits and hyphens are allowed"
    case .noLetter: return "it has no letter; at least one ASCII lowercase letter is required"
    case .hyphenAtEnd: return "it starts or ends with a hyphen"
    case .adjacentHyphens: return "it has two hyphens next to each other"
    }
  }

  public var description: String { "the service type \(DisplayText.quoted(text)) is refused: \(reason)" }
}
