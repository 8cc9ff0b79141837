import Testing

@testable import wormhole_tui

/// The watch's timeline: away from 2.5 s to 5 s, then every 15 s for 2.5 s.
@Suite struct DemoScheduleTests {
  @Test func theWatchIsAwayForTheAbsenceOfEachPeriod() {
    let schedule = DemoSchedule.standard
    #expect(schedule.isWatchRunning(at: 0))
    #expect(schedule.isWatchRunning(at: 2.4))
    #expect(!schedule.isWatchRunning(at: 2.5))
    #expect(!schedule.isWatchRunning(at: 4.9))
    #expect(schedule.isWatchRunning(at: 5))
    #expect(schedule.isWatchRunning(at: 17.4))
    #expect(!schedule.isWatchRunning(at: 17.5))
    #expect(schedule.isWatchRunning(at: 20))
  }

  @Test func eachChangeFollowsTheLast() {
    let schedule = DemoSchedule.standard
    var elapsed = 0.0
    var changes: [Double] = []
    for _ in 0..<5 {
      elapsed = schedule.nextChange(after: elapsed)
      changes.append(elapsed)
    }
    #expect(changes == [2.5, 5, 17.5, 20, 32.5])
    // Each change flips the watch.
    for change in changes {
      #expect(schedule.isWatchRunning(at: change) != schedule.isWatchRunning(at: change - 0.01))
    }
  }
}
