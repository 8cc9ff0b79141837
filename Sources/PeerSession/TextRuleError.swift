import ArchivedValues

/// A value made from text that must keep rules, such as ``PeerName`` and ``ServiceType``: the
/// text as given, the check every initializer makes, and what ``TextRuleError`` needs to say
/// which rule a text breaks. Values order by the bytes of their UTF-8, the same in every locale.
public protocol RuledText: Sendable, Hashable, Comparable {
  /// The rules of the value.
  associatedtype Rule: Sendable, Equatable
  /// The text as given.
  var text: String { get }
  /// The rule `text` breaks, or `nil` when it makes a value.
  static func brokenRule(in text: String) -> Rule?
  /// What the value is called in messages (`peer name`).
  static var noun: String { get }
  /// `rule` in words.
  static func reason(_ rule: Rule) -> String
}

extension RuledText {
  /// `text` when it keeps every rule; the conforming type's initializer keeps what this returns.
  static func checked(_ text: String) throws(TextRuleError<Self>) -> String {
    if let rule = brokenRule(in: text) { throw TextRuleError(text: text, rule: rule) }
    return text
  }

  public static func < (left: Self, right: Self) -> Bool {
    left.text.utf8.lexicographicallyPrecedes(right.text.utf8)
  }
}

/// A text that breaks a rule of `Value`. `text` is the raw input: the description escapes it.
public struct TextRuleError<Value: RuledText>: Error, Sendable, Equatable, CustomStringConvertible {
  /// The rules of `Value`.
  public typealias Rule = Value.Rule

  /// The refused text, as given (not escaped).
  public var text: String
  /// The rule it breaks.
  public var rule: Rule

  public init(text: String, rule: Rule) {
    self.text = text
    self.rule = rule
  }

  /// The rule in words.
  public var reason: String { Value.reason(rule) }

  public var description: String { "the \(Value.noun) \(DisplayText.quoted(text)) is refused: \(reason)" }
}
