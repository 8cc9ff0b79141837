/// What matching one candidate against a ``Pattern`` found.
public enum MatchOutcome: Equatable, Sendable {
  /// The pattern matches somewhere in the candidate.
  case match
  /// The pattern matches nowhere in the candidate.
  case noMatch
  /// Matching stopped before it could decide: the pattern costs more on this candidate than the
  /// ``MatchLimits`` allow. Neither a match nor a non-match.
  case cutOff(CutOffReason)
}

/// Why PCRE2 stopped matching a candidate before deciding.
public enum CutOffReason: Equatable, Sendable, CustomStringConvertible {
  /// Too many backtracking steps (`PCRE2_ERROR_MATCHLIMIT`).
  case matchLimit
  /// Backtracking nested too deep (`PCRE2_ERROR_DEPTHLIMIT`).
  case depthLimit
  /// Backtracking needed too much memory (`PCRE2_ERROR_HEAPLIMIT`).
  case heapLimit
  /// The compiled (JIT) matcher ran out of its stack (`PCRE2_ERROR_JIT_STACKLIMIT`).
  case jitStackLimit
  /// Any other PCRE2 matching error, by its (negative) code and PCRE2's message.
  case failed(code: Int32, message: String)

  public var description: String {
    switch self {
    case .matchLimit: "PCRE2 match limit"
    case .depthLimit: "PCRE2 depth limit"
    case .heapLimit: "PCRE2 heap limit"
    case .jitStackLimit: "PCRE2 JIT stack limit"
    case .failed(let code, let message): "PCRE2 error \(code): \(message)"
    }
  }
}
