import ArchivedValues

/// A value made from text that must keep rules, such as ``PeerName`` and ``ServiceType``: what
/// ``TextRuleError`` needs to say which rule a text breaks.
public protocol RuledText {
  /// The rules of the value.
  associatedtype Rule: Sendable, Equatable
  /// What the value is called in messages (`peer name`).
  static var noun: String { get }
  /// `rule` in words.
  static func reason(_ rule: Rule) -> String
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
