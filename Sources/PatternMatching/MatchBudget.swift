/// What one pass of a pattern over many candidates (the names of a tree, the rows of a pane) may
/// cost, and what it left undecided. The bounds, from the smallest:
///
/// - each candidate is bounded by the pattern's ``MatchLimits`` (a cut-off costs well under a
///   millisecond);
/// - once ``cutOffsBeforeGivingUp`` candidates have been cut off, the pattern is shown to be too
///   costly and is not tried on the rest of the pass (until ``begin()``);
/// - once a burst of matching (from ``begin()`` or ``resume()``: one message of the caller's loop)
///   has lasted ``timeLimit`` and tried at least ``minimumTriedPerBurst`` candidates, the rest of
///   the burst is not tried. (The minimum keeps a small pass decided on a machine too busy to run
///   it in time; its cost is bounded by the limits of its few candidates.)
///
/// A candidate that was cut off or not tried is neither a match nor a non-match: ``match(_:_:)``
/// says so, and the counts say how many there were, so a caller never gives a silent wrong answer.
public struct MatchBudget: Sendable {
  /// Why a pass stopped trying the pattern.
  public enum Stop: Equatable, Sendable {
    /// ``MatchBudget/cutOffsBeforeGivingUp`` candidates were cut off, the last for this reason.
    case tooCostly(CutOffReason)
    /// One burst of matching took ``MatchBudget/timeLimit``; ``MatchBudget/resume()`` tries again.
    case outOfTime
  }

  /// Candidates cut off before the pattern is given up for the rest of the pass.
  public var cutOffsBeforeGivingUp: Int
  /// The longest one burst of matching may take.
  public var timeLimit: Duration
  /// Candidates a burst always tries, however long they take.
  public var minimumTriedPerBurst: Int
  /// Where time comes from.
  public var clock: MatchClock
  /// Candidates of this pass that were cut off.
  public private(set) var cutOffCount = 0
  /// Candidates of this pass that were not tried because the pass had stopped trying.
  public private(set) var notTriedCount = 0
  /// Why the last candidate cut off was cut off.
  public private(set) var lastCutOff: CutOffReason?
  /// Why the pass stopped trying the pattern, while it has; `nil` while it tries.
  public private(set) var stop: Stop?
  /// Whether the pass ever ran out of time (the counts then include candidates it skipped).
  public private(set) var ranOutOfTime = false
  private var burstStart: Duration?
  private var triedInBurst = 0

  /// A budget; the defaults keep a pass well under a frame of a 30 Hz screen.
  public init(
    cutOffsBeforeGivingUp: Int = 3, timeLimit: Duration = .milliseconds(15), minimumTriedPerBurst: Int = 16,
    clock: MatchClock = .continuous
  ) {
    self.cutOffsBeforeGivingUp = cutOffsBeforeGivingUp
    self.timeLimit = timeLimit
    self.minimumTriedPerBurst = minimumTriedPerBurst
    self.clock = clock
  }

  /// Whether every candidate of the pass so far was decided.
  public var decidedAll: Bool { cutOffCount == 0 && notTriedCount == 0 }

  /// Starts a new pass: forgets the counts and tries the pattern again, in a new burst.
  public mutating func begin() {
    cutOffCount = 0
    notTriedCount = 0
    lastCutOff = nil
    stop = nil
    ranOutOfTime = false
    burstStart = nil
  }

  /// Goes on with the pass in a new burst (a later message: rows appended, a directory changed):
  /// the time limit starts again, the counts stay, and a pattern given up as too costly stays
  /// given up.
  public mutating func resume() {
    if stop == .outOfTime { stop = nil }
    burstStart = nil
  }

  /// Matches `candidate` within the budget: the outcome, or `nil` when the pass has stopped
  /// trying the pattern (counted in ``notTriedCount``; the candidate is then not even made).
  public mutating func match(_ pattern: Pattern, _ candidate: @autoclosure () -> String) -> MatchOutcome? {
    guard stop == nil else {
      notTriedCount += 1
      return nil
    }
    let outcome = pattern.match(candidate())
    // One reading a candidate, when it ends; the burst's first candidate starts the clock.
    let end = clock.now()
    if burstStart == nil {
      burstStart = end
      triedInBurst = 0
    }
    triedInBurst += 1
    if case .cutOff(let reason) = outcome {
      cutOffCount += 1
      lastCutOff = reason
      if cutOffCount >= cutOffsBeforeGivingUp { stop = .tooCostly(reason) }
    }
    if stop == nil, triedInBurst >= minimumTriedPerBurst, let burstStart, end - burstStart >= timeLimit {
      stop = .outOfTime
      ranOutOfTime = true
    }
    return outcome
  }
}

/// Monotonic time for a ``MatchBudget``, as a duration since some fixed origin.
public struct MatchClock: Sendable {
  /// The time now.
  public let now: @Sendable () -> Duration

  /// A clock reading `now`.
  public init(now: @escaping @Sendable () -> Duration) { self.now = now }

  /// The system's monotonic clock.
  public static let continuous: MatchClock = {
    let origin = ContinuousClock.now
    return MatchClock { ContinuousClock.now - origin }
  }()
}
