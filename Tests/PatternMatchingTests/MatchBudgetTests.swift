import PatternMatching
import Synchronization
import Testing

/// A clock that moves by a fixed step at every reading.
final class ScriptedTime: Sendable {
  private let time = Mutex<Duration>(.zero)
  let step: Duration

  init(step: Duration = .zero) { self.step = step }

  var clock: MatchClock {
    MatchClock { [self] in
      time.withLock { now in
        now += step
        return now
      }
    }
  }
}

@Suite struct MatchBudgetTests {
  let catastrophic = String(repeating: "a", count: 240) + "!"

  @Test func afterAFewCutOffsThePatternIsNotTriedForTheRestOfThePass() throws {
    let pattern = try Pattern("(a+)+$")
    var budget = MatchBudget(cutOffsBeforeGivingUp: 3, clock: ScriptedTime().clock)
    let outcomes = (0..<6).map { _ in budget.match(pattern, catastrophic) }
    #expect(outcomes == [.cutOff(.matchLimit), .cutOff(.matchLimit), .cutOff(.matchLimit), nil, nil, nil])
    #expect(budget.cutOffCount == 3)
    #expect(budget.notTriedCount == 3)
    #expect(budget.stop == .tooCostly(.matchLimit))
    budget.resume()
    #expect(budget.match(pattern, "aaa") == nil)
    budget.begin()
    #expect(budget.decidedAll)
    #expect(budget.match(pattern, "aaa") == .match)
  }

  /// The worst pass: 100,000 names that each would hit the limit cost a few cut-offs and a count.
  @Test func aPassOverManyCatastrophicNamesTriesOnlyAFew() throws {
    let pattern = try Pattern("(a+)+$")
    var budget = MatchBudget(clock: ScriptedTime().clock)
    var tried = 0
    for _ in 0..<100_000 where budget.match(pattern, catastrophic) != nil { tried += 1 }
    #expect(tried == 3)
    #expect(budget.notTriedCount == 99_997)
  }

  @Test func aBurstThatRunsOutOfTimeStopsTryingUntilTheNextBurst() throws {
    let time = ScriptedTime(step: .milliseconds(1))
    let pattern = try Pattern("^a")
    var budget = MatchBudget(timeLimit: .milliseconds(10), minimumTriedPerBurst: 1, clock: time.clock)
    var outcomes: [MatchOutcome?] = []
    for _ in 0..<14 { outcomes.append(budget.match(pattern, "alpha")) }
    // One reading a candidate, 1 ms apart: the eleventh ends 10 ms after the first.
    #expect(outcomes == Array(repeating: .match, count: 11) + [nil, nil, nil])
    #expect(budget.stop == .outOfTime)
    #expect(budget.notTriedCount == 3)
    budget.resume()
    #expect(budget.match(pattern, "alpha") == .match)
    #expect(budget.stop == nil)
    #expect(budget.ranOutOfTime)
    #expect(budget.notTriedCount == 3)
  }

  @Test func aSmallPassIsDecidedOnAMachineTooBusyToRunItInTime() throws {
    let pattern = try Pattern("^a")
    var budget = MatchBudget(
      timeLimit: .milliseconds(1), minimumTriedPerBurst: 16, clock: ScriptedTime(step: .milliseconds(1)).clock
    )
    let outcomes = (0..<16).map { _ in budget.match(pattern, "alpha") }
    #expect(outcomes.allSatisfy { $0 == .match })
    #expect(budget.decidedAll)
    #expect(budget.match(pattern, "alpha") == nil)
  }
}
