import CPCRE2

/// How a ``Pattern`` matches, set when it is compiled (PCRE2 compile options), so that the
/// pattern's own text is never rewritten to get them.
public struct PatternOptions: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8

  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Letters match in either case, by Unicode case folding (`PCRE2_CASELESS`); `(?-i)` in the
  /// pattern turns it off where it stands.
  public static let caseInsensitive = PatternOptions(rawValue: 1 << 0)
  /// The pattern must match the whole candidate, from its first character to its last
  /// (`PCRE2_ANCHORED | PCRE2_ENDANCHORED`): a match of a part only is no match. Exact for every
  /// pattern, alternations, recursion (`(?R)`) and `(*ACCEPT)` included, as wrapping the text in
  /// `\A(?:…)\z` would not be. The candidate has one start position, so it gets all of
  /// ``MatchLimits/steps``.
  public static let wholeSubject = PatternOptions(rawValue: 1 << 1)

  /// The PCRE2 compile options these stand for.
  var compileOptions: UInt32 {
    var options: UInt32 = 0
    if contains(.caseInsensitive) { options |= UInt32(PCRE2_CASELESS) }
    if contains(.wholeSubject) { options |= UInt32(PCRE2_ANCHORED | PCRE2_ENDANCHORED) }
    return options
  }
}
