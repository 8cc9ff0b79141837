import Dispatch
import Foundation
import Glibc
import KeyedArchive
import TestSupport
import Testing
import WormholeVocabulary

@testable import Wormhole

/// `listenForMessage(withIdentifier:since:listener:)`: the journal's records from `since` on are
/// heard even when written before the listener, once each, and older ones never.
@Suite struct ListenSinceTests {
  /// A record dated after `record`: passes filler until the wall clock's millisecond moves on
  /// (a wait for the clock, not a sleep; a millisecond at most).
  static func passUntilLater(than record: TrafficRecord, _ wormhole: Wormhole) throws {
    var last = record
    while last.milliseconds <= record.milliseconds {
      last = try wormhole.passMessage(.integer(0), identifier: "filler")
    }
  }

  @Test func whatWasPassedFromSinceOnIsHeardFirstAndOlderNever() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let old = try wormhole.passMessage(.integer(1), identifier: "old")
    try Self.passUntilLater(than: old, wormhole)
    let since = old.milliseconds + 1
    let new = try wormhole.passMessage(.integer(2), identifier: "new")
    let heardOld = Collector<ReceivedMessage>()
    let heardNew = Collector<ReceivedMessage>()
    let oldToken = try wormhole.listenForMessage(withIdentifier: "old", since: since) { heardOld.append($0) }
    defer { oldToken.cancel() }
    let newToken = try wormhole.listenForMessage(withIdentifier: "new", since: since) { heardNew.append($0) }
    defer { newToken.cancel() }
    // Without a listener queue the catch-up ran before the call returned.
    #expect(heardNew.values.map(\.message) == [.integer(2)])
    #expect(heardNew.values.first?.record.sequence == new.sequence)
    #expect(heardOld.values.isEmpty)
    try wormhole.passMessage(.integer(3), identifier: "old")
    #expect(heardOld.wait(for: 1, seconds: 20).map(\.message) == [.integer(3)])
    try wormhole.passMessage(.integer(4), identifier: "new")
    #expect(heardNew.wait(for: 2, seconds: 20).map(\.message) == [.integer(2), .integer(4)])
  }

  /// A record appended after the listener was registered and before the catch-up read the
  /// journal reaches it both ways (the follower, kept while catching up, and the catch-up): it is
  /// heard once.
  @Test func aRecordSeenByTheCatchUpAndTheFollowerIsHeardOnce() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let writer = try Wormhole(directory: temporary.path)
    let since = try wormhole.passMessage(.integer(0), identifier: "filler").milliseconds
    let witnessed = Collector<ReceivedMessage>()
    let witness = try wormhole.listenForMessage(withIdentifier: "both") { witnessed.append($0) }
    defer { witness.cancel() }
    wormhole.listeners.hookBeforeCatchUp.withLock {
      $0 = {
        _ = try? writer.passMessage(.integer(1), identifier: "both")
        // The follower hands a batch to the listeners still catching up before it calls the
        // others: once the witness heard it, ours holds it too.
        _ = witnessed.wait(for: 1, seconds: 20)
      }
    }
    let heard = Collector<ReceivedMessage>()
    let token = try wormhole.listenForMessage(withIdentifier: "both", since: since) { heard.append($0) }
    defer { token.cancel() }
    #expect(witnessed.values.count == 1)
    #expect(heard.values.map(\.message) == [.integer(1)])
    try writer.passMessage(.integer(2), identifier: "both")
    #expect(heard.wait(for: 2, seconds: 20).map(\.message) == [.integer(1), .integer(2)])
    #expect(heard.values.count == 2)
  }

  /// The process's start, read from the kernel: the bounds hold the past, the earliest no
  /// further than a tick and a millisecond from the latest.
  @Test func theStartOfThisProcessIsInThePastWithinOneTick() throws {
    let start = try #require(ProcessStart.current())
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let nowMilliseconds = Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    #expect(start.earliest <= start.latest && start.latest <= nowMilliseconds + 1)
    #expect(start.latest - start.earliest <= 1_000 / Int64(sysconf(Int32(_SC_CLK_TCK))) + 2, "\(start)")
    #expect(start.processIdentifier == getpid())
  }

  static func record(at milliseconds: Int64, by processIdentifier: Int32) -> TrafficRecord {
    TrafficRecord(
      sequence: 1, milliseconds: milliseconds, processIdentifier: processIdentifier, sender: "t",
      transiting: "file", kind: .pass, identifier: "x", bytes: 1, outcome: .ok)
  }

  /// Within the start tick a record is taken only from this process or one created after it; a
  /// number wrapped around to a running process that started before says no.
  @Test func withinTheStartTickOnlyLaterProcessesRecordsAreTaken() throws {
    let start = ProcessStart(earliest: 1_000, latest: 1_010, processIdentifier: 5_000, ticks: 1 << 40)
    #expect(start.startedBefore(Self.record(at: 1_010, by: 1)))
    #expect(!start.startedBefore(Self.record(at: 999, by: 6_000)))
    #expect(!start.startedBefore(Self.record(at: 1_000, by: 4_999)))
    #expect(start.startedBefore(Self.record(at: 1_000, by: 5_000)))
    // Not running (pid_max is at most 2^22): created after, and gone.
    #expect(start.startedBefore(Self.record(at: 1_005, by: Int32.max)))
    // Running, started long before this start's tick.
    let running = ProcessStart(earliest: 1_000, latest: 1_010, processIdentifier: 0, ticks: 1 << 40)
    #expect(!running.startedBefore(Self.record(at: 1_005, by: getpid())))
  }

  @Test func theStartFieldIsCountedAfterTheLastParenthesisOfTheName() {
    var fields = ["1234", "(a) b) (c)", "S"] + (4...21).map(String.init)
    fields.append("98765")
    fields += ["1", "2"]
    let line = Array((fields.joined(separator: " ") + "\n").utf8)
    let stat = ProcessStat(statLine: line[...])
    #expect(stat?.startTicks == 98765 && stat?.state == UInt8(ascii: "S") && stat?.isStopped == false)
    let short = ProcessStat(statLine: Array("1 (x) T 1 2".utf8)[...])
    #expect(short?.startTicks == nil && short?.isStopped == true)
    #expect(ProcessStat(statLine: Array("1 (x)".utf8)[...]) == nil)
  }
}
