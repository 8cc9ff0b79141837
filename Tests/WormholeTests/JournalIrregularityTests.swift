import Foundation
import Glibc
import TestSupport
import Testing
import WormholeVocabulary

@testable import Wormhole

/// The reader says what happened when numbering has a gap: a line skipped (where), a writer's
/// jump, or records rotated away unread; never a rotation it did not see (issue 12).
@Suite struct JournalIrregularityTests {
  private func foreignRecord(_ sequence: UInt64) -> String {
    #"{"seq":\#(sequence),"time":"2026-11-29T12:41:09.123Z","pid":1,"sender":"x","transiting":"file","kind":"notify","identifier":"foreign","bytes":0,"outcome":"ok"}"#
  }

  private func append(_ text: String, to temporary: TemporaryDirectory) throws {
    let handle = try #require(FileHandle(forWritingAtPath: temporary.path + "/.wormhole-journal"))
    handle.seekToEndOfFile()
    handle.write(Data(text.utf8))
    handle.closeFile()
  }

  private func size(_ path: String) -> Int {
    var status = stat()
    return stat(path, &status) == 0 ? Int(status.st_size) : -1
  }

  @Test func aMalformedLineIsReportedWhereItIsAndNotAsAGap() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    for index in 0..<8 { try wormhole.passMessage(nil, identifier: "m\(index)") }
    let journal = temporary.path + "/.wormhole-journal"
    let offset = size(journal)
    try append(#"{"seq":9,"kind":"#, to: temporary)
    try append("\n", to: temporary)
    try append(foreignRecord(10) + "\n", to: temporary)
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: false)
    #expect(reader.readAvailable().map(\.sequence) == [1, 2, 3, 4, 5, 6, 7, 8, 10])
    #expect(reader.irregularities == [.skippedLines(path: journal, offset: offset, count: 1)])
    #expect(reader.irregularities.first?.description.contains("at byte \(offset)") == true)
    // Said once: the next read finds nothing new.
    #expect(reader.readAvailable().isEmpty)
    #expect(reader.irregularities.isEmpty)
  }

  @Test func anOverlongLineIsReportedAsSkipped() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessage(nil, identifier: "a")
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: true)
    let offset = size(temporary.path + "/.wormhole-journal")
    try append(String(repeating: "x", count: 200_000) + "\n", to: temporary)
    try wormhole.passMessage(nil, identifier: "b")
    #expect(reader.readAvailable().map(\.sequence) == [2])
    #expect(
      reader.irregularities == [
        .skippedLines(path: temporary.path + "/.wormhole-journal", offset: offset, count: 1)
      ])
  }

  @Test func aJumpToTheLargestNumberIsAJumpNotARotation() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    for index in 0..<13 { try wormhole.passMessage(nil, identifier: "m\(index)") }
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: true)
    try append(foreignRecord(TrafficRecord.maximumSequence) + "\n", to: temporary)
    #expect(reader.readAvailable().map(\.sequence) == [TrafficRecord.maximumSequence])
    let journal = temporary.path + "/.wormhole-journal"
    #expect(
      reader.irregularities == [.sequenceJump(path: journal, from: 13, to: TrafficRecord.maximumSequence)])
    #expect(reader.irregularities.first?.description.contains("rotated") == false)
  }

  @Test func generationsRotatedAwayUnreadAreSaidAsSuch() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    var options = Wormhole.Options()
    options.journalLimit = 4096
    let wormhole = try Wormhole(directory: temporary.path, options: options)
    try wormhole.passMessage(nil, identifier: "first")
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: false)
    #expect(reader.readAvailable().map(\.sequence) == [1])
    // Far more than two generations of about 25 records each.
    for index in 0..<200 { try wormhole.passMessage(nil, identifier: "m\(index % 3)") }
    let records = reader.readAvailable()
    #expect(records.last?.sequence == 201)
    let rotatedAway = reader.irregularities.filter {
      if case .rotatedAway = $0 { return true }
      return false
    }
    #expect(rotatedAway.count == 1)
    #expect(
      !reader.irregularities.contains { if case .sequenceJump = $0 { return true } else { return false } })
  }

  @Test func aReaderOneRotationBehindSaysNothing() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    var options = Wormhole.Options()
    options.journalLimit = 4096
    let wormhole = try Wormhole(directory: temporary.path, options: options)
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: false)
    for chunk in 0..<10 {
      for index in 0..<10 { try wormhole.passMessage(nil, identifier: "m\(chunk)-\(index)") }
      _ = reader.readAvailable()
      #expect(reader.irregularities.isEmpty)
    }
  }

  @Test(.hangLimit) func aFollowerSaysWhatItSkipped() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessage(nil, identifier: "a")
    let notices = Collector<TrafficJournalNotice>()
    let heard = Collector<UInt64>()
    let follower = try TrafficJournalFollower(
      directory: temporary.path, notices: { notices.append($0) },
      handler: { records in for record in records { heard.append(record.sequence) } })
    defer { follower.cancel() }
    let offset = size(temporary.path + "/.wormhole-journal")
    try append("not a record\n", to: temporary)
    try wormhole.passMessage(nil, identifier: "b")
    #expect(heard.wait(for: 1) == [2])
    let said = notices.wait(for: 1)
    #expect(
      said.contains(
        .irregular(.skippedLines(path: temporary.path + "/.wormhole-journal", offset: offset, count: 1))),
      "\(said)")
  }
}
