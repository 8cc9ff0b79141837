import Foundation
import Glibc
import Testing
import WormholeVocabulary

@testable import Wormhole

/// Numbering continues past whatever the journal's tail holds and never repeats a number that a
/// reader has seen (issue 12): long foreign lines, damaged tails, torn lines, huge claimed numbers.
@Suite struct JournalNumberingTests {
  private func foreignRecord(_ sequence: String, padding: Int = 0) -> String {
    let sender = String(repeating: "x", count: padding)
    return
      #"{"seq":\#(sequence),"time":"2026-11-29T12:41:09.123Z","pid":1,"sender":"\#(sender)","transiting":"file","kind":"notify","identifier":"foreign","bytes":0,"outcome":"ok"}"#
  }

  private func append(_ text: String, to temporary: TemporaryDirectory) throws {
    let handle = try #require(FileHandle(forWritingAtPath: temporary.path + "/.wormhole-journal"))
    handle.seekToEndOfFile()
    handle.write(Data(text.utf8))
    handle.closeFile()
  }

  /// Passes `count` notifications through one wormhole (records 1 to `count`).
  private func thirteenRecords(_ temporary: TemporaryDirectory, count: Int = 13) throws {
    let wormhole = try Wormhole(directory: temporary.path)
    for index in 0..<count { try wormhole.passMessage(nil, identifier: "m\(index)") }
  }

  private func expectNoRepeats(_ temporary: TemporaryDirectory, _ comment: Comment? = nil) throws {
    let sequences = try TrafficJournal.records(inDirectory: temporary.path).map(\.sequence)
    #expect(Set(sequences).count == sequences.count, "\(sequences)")
  }

  @Test func aTenMegabyteForeignLineDoesNotRestartNumbering() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    try thirteenRecords(temporary)
    try append(foreignRecord("14", padding: 10 << 20) + "\n", to: temporary)
    // Another process, so that nothing it remembers helps.
    let record = try Wormhole(directory: temporary.path).passMessage(nil, identifier: "after")
    #expect(record.sequence == 14)
    try expectNoRepeats(temporary)
  }

  @Test func manyLongLinesAfterTheLastRecordAreSkipped() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    try thirteenRecords(temporary, count: 5)
    let long = String(repeating: "z", count: 100 * 1024) + "\n"
    try append(String(repeating: long, count: 60), to: temporary)
    #expect(try Wormhole(directory: temporary.path).passMessage(nil, identifier: "after").sequence == 6)
    try expectNoRepeats(temporary)
  }

  @Test func aDamagedTailWithoutNewlinesIsPassed() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    try thirteenRecords(temporary, count: 3)
    try append(String(repeating: "\u{1}garbage", count: 700_000), to: temporary)
    #expect(try Wormhole(directory: temporary.path).passMessage(nil, identifier: "after").sequence == 4)
    try expectNoRepeats(temporary)
  }

  @Test func aTornLastLineThatIsARecordCounts() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    try thirteenRecords(temporary, count: 3)
    // A writer died before its newline: the appender ends the line, and readers then see it.
    try append(foreignRecord("4"), to: temporary)
    #expect(try Wormhole(directory: temporary.path).passMessage(nil, identifier: "after").sequence == 5)
    try expectNoRepeats(temporary)
  }

  @Test func aClaimOverTheBoundIsNotARecordAndNumberingContinues() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    try thirteenRecords(temporary)
    try append(foreignRecord(String(TrafficRecord.maximumSequence + 1)) + "\n", to: temporary)
    #expect(try Wormhole(directory: temporary.path).passMessage(nil, identifier: "after").sequence == 14)
    try expectNoRepeats(temporary)
  }

  @Test func aJournalAtTheLargestNumberRefusesToRepeatOne() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    try thirteenRecords(temporary)
    try append(foreignRecord(String(TrafficRecord.maximumSequence)) + "\n", to: temporary)
    let wormhole = try Wormhole(directory: temporary.path)
    #expect {
      try wormhole.passMessage(nil, identifier: "after")
    } throws: { error in
      guard case .journalUnusable(_, let reason) = error as? WormholeError else { return false }
      return reason.contains("move it aside")
    }
    try expectNoRepeats(temporary)
    // Moved aside, as the message says: numbering starts again in a new journal.
    #expect(
      rename(temporary.path + "/.wormhole-journal", temporary.path + "/.wormhole-journal.old") == 0)
    #expect(try wormhole.passMessage(nil, identifier: "again").sequence == 1)
  }

  @Test func aWriterThatWroteLastNeedsNoRead() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    for expected in UInt64(1)...20 {
      #expect(try wormhole.passMessage(nil, identifier: "a").sequence == expected)
    }
  }
}

@Suite struct JournalBatchTests {
  @Test func aBatchIsNumberedConsecutivelyBetweenSingleAppendsAndReadsBack() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessage(.integer(1), identifier: "a")
    let entries = (0..<3).map { index in
      Wormhole.JournalEntry(
        identifier: "m\(index)", bytes: index, transiting: .sessionMessage,
        details: TrafficDetails(device: "p/phone", peer: "p/watch", delivery: .delivered),
        error: index == 2 ? "not reachable" : nil)
    }
    let written = try wormhole.record(contentsOf: entries)
    #expect(written.map(\.sequence) == [2, 3, 4])
    #expect(try wormhole.record(contentsOf: []).isEmpty)
    try wormhole.passMessage(.integer(2), identifier: "a")
    let records = try wormhole.trafficRecords()
    #expect(records.map(\.sequence) == [1, 2, 3, 4, 5])
    #expect(records[1...3].map(\.identifier) == ["m0", "m1", "m2"])
    #expect(records[3].outcome == .failed && records[3].error == "not reachable" && records[1].outcome == .ok)
    #expect(records[1...3].allSatisfy { $0.device == "p/phone" && $0.transiting == "session-message" })
  }
}
