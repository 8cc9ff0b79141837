/// Why a pattern does not compile: PCRE2's message and where in the pattern it stopped.
public struct PatternError: Error, Equatable, Sendable, CustomStringConvertible {
  /// PCRE2's message, e.g. "missing closing parenthesis".
  public var message: String
  /// Where PCRE2 stopped, in characters (Unicode scalars) from the start of the pattern.
  public var offset: Int
  /// PCRE2's error code.
  public var code: Int32

  public var description: String { "\(message) at offset \(offset)" }
}
