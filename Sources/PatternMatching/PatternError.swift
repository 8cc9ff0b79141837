import CPCRE2

/// Why a pattern does not compile: PCRE2's message and where in the pattern it stopped.
public struct PatternError: Error, Equatable, Sendable, CustomStringConvertible {
  /// PCRE2's message, e.g. "missing closing parenthesis".
  public var message: String
  /// Where PCRE2 stopped, in characters (Unicode scalars) from the start of the pattern;
  /// meaningless when the error ``concernsTheWholePattern``.
  public var offset: Int
  /// PCRE2's error code.
  public var code: Int32

  /// The errors about the pattern as a whole (too large, too complicated, out of memory), whose
  /// offset is wherever PCRE2 happened to notice, not a place to mend.
  private static let wholePatternCodes: Set<Int32> = [
    PCRE2_ERROR_PATTERN_TOO_LARGE, PCRE2_ERROR_HEAP_FAILED, PCRE2_ERROR_PATTERN_TOO_COMPLICATED,
    PCRE2_ERROR_PATTERN_STRING_TOO_LONG, PCRE2_ERROR_NOMEMORY,
  ]

  /// Whether the error is about the pattern as a whole rather than a place in it.
  public var concernsTheWholePattern: Bool { Self.wholePatternCodes.contains(code) }

  public var description: String { concernsTheWholePattern ? message : "\(message) at offset \(offset)" }
}
