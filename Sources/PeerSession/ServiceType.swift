import ArchivedValues

/// The type of service peers advertise and browse for, as Bonjour requires it.
///
/// 1 to 15 characters, each an ASCII lowercase letter, digit or hyphen, at least one letter, and
/// no hyphen at either end or next to another (`MCNearbyServiceAdvertiser`'s `serviceType`).
/// Anything else is refused with the rule it breaks, never truncated or lowercased.
public struct ServiceType: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The longest service type, in characters.
  public static let maximumLength = 15

  /// The service type as given.
  public let text: String

  /// The service type, or ``ServiceTypeError`` saying which rule `text` breaks.
  public init(_ text: String) throws(ServiceTypeError) { self.text = try Self.checked(text) }

  /// The rule `text` breaks, or `nil` when it is a service type.
  public static func brokenRule(in text: String) -> Rule? {
    let scalars = Array(text.unicodeScalars)
    if scalars.isEmpty { return .empty }
    if let bad = scalars.first(where: { !isAllowed($0) }) { return .character(bad) }
    if scalars.count > maximumLength { return .tooLong(characters: scalars.count) }
    if !scalars.contains(where: { ("a"..."z").contains($0) }) { return .noLetter }
    if scalars.first == "-" || scalars.last == "-" { return .hyphenAtEnd }
    if text.contains("--") { return .adjacentHyphens }
    return nil
  }

  private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
  }

  public var description: String { text }
}

/// A service type that breaks a rule of ``ServiceType``.
public typealias ServiceTypeError = TextRuleError<ServiceType>

extension ServiceType: RuledText {
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

  public static var noun: String { "service type" }

  public static func reason(_ rule: Rule) -> String {
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
}
