import PatternMatching

/// A route's regular expression, compiled as Stargate matches: PCRE2 (Perl syntax, Unicode),
/// case-insensitively, against the whole subject (the URL's whole string, or the whole
/// notification identifier): a pattern that matches a part only does not match. Matching runs
/// under ``MatchLimits`` (by default ``MatchLimits/interactive``: 100,000 backtracking steps, well
/// under a millisecond), so a pattern that backtracks catastrophically is cut off, never a freeze.
///
/// The pattern's text is compiled as given (no `^`/`$` are needed, and none are added: the whole
/// subject is a compile option), so every PCRE2 construct keeps its meaning.
public struct RoutePattern: Sendable, CustomStringConvertible {
  /// The pattern as given.
  public let source: String
  /// The compiled pattern (case-insensitive, whole subject).
  public let compiled: Pattern

  /// Compiles `source`.
  /// - Throws: ``PatternError`` with PCRE2's message and where, in characters, it stopped.
  public init(_ source: String, limits: MatchLimits = .interactive) throws(PatternError) {
    self.source = source
    compiled = try Pattern(source, limits: limits, options: [.caseInsensitive, .wholeSubject])
  }

  /// Whether the pattern matches the whole of `subject`, or was cut off trying.
  public func match(_ subject: String) -> MatchOutcome { compiled.match(subject) }

  public var description: String { source }
}
