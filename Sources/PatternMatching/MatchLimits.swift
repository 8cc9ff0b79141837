/// How much work PCRE2 may spend on one candidate before it gives up on it with
/// ``MatchOutcome/cutOff(_:)``. Applied through a match context to every match, compiled (JIT)
/// or interpreted. Other limits start from ``interactive``, changing what they need.
public struct MatchLimits: Equatable, Sendable {
  /// Backtracking steps per candidate. PCRE2 counts its match limit (`pcre2_set_match_limit`,
  /// default 10,000,000) afresh at every start position, so a long candidate could cost its length
  /// times the limit; these steps are shared out among the start positions instead, each getting
  /// at least ``minimumStepsPerStart``.
  public var steps: UInt32
  /// The fewest backtracking steps a start position gets, however long the candidate.
  public var minimumStepsPerStart: UInt32
  /// Nesting of backtracking per candidate (`pcre2_set_depth_limit`; the interpreter only).
  public var depth: UInt32
  /// Memory for backtracking per candidate, in KiB (`pcre2_set_heap_limit`; the interpreter only).
  public var heapKibibytes: UInt32

  /// Limits for matching while a person waits: a candidate that reaches them has cost well
  /// under a millisecond, while names and rows of ordinary patterns stay far below them.
  public static let interactive = MatchLimits(
    steps: 100_000, minimumStepsPerStart: 100, depth: 10_000, heapKibibytes: 4096)

  /// The match limit for each start position of a subject of `subjectLength` bytes.
  func stepsPerStart(subjectLength: Int) -> UInt32 {
    let starts = UInt32(clamping: subjectLength + 1)
    return max(steps / starts, minimumStepsPerStart)
  }
}
