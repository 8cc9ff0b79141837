import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import Testing
import Wormhole
import WormholeVocabulary

@testable import MailboxWatcher

/// The model's notices about a journal say what happened and end when the condition ends
/// (issue 12).
@Suite(.hangLimit) struct JournalNoticeTests {
  private func append(_ text: String, to directory: TemporaryDirectory) throws {
    let handle = try #require(FileHandle(forWritingAtPath: directory.path + "/.wormhole-journal"))
    handle.seekToEndOfFile()
    handle.write(Data(text.utf8))
    handle.closeFile()
  }

  private func foreignRecord(_ sequence: UInt64) -> String {
    #"{"seq":\#(sequence),"time":"2026-11-29T12:41:09.123Z","pid":1,"sender":"x","transiting":"file","kind":"notify","identifier":"foreign","bytes":0,"outcome":"ok"}"#
  }

  private func model(_ directory: TemporaryDirectory, _ signal: UpdateSignal) throws -> LiveModel {
    try LiveModel(roots: [.container(directory.path)], onUpdate: signal.handler)
  }

  @Test func aSkippedMalformedRecordIsSaidAsSkippedNotRotatedAway() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let wormhole = try Wormhole(directory: directory.path)
    for index in 0..<8 { try wormhole.passMessage(nil, identifier: "m\(index)") }
    let signal = UpdateSignal()
    let model = try model(directory, signal)
    defer { model.cancel() }
    try append(#"{"seq":9,"oops"}"# + "\n", to: directory)
    try append(foreignRecord(10) + "\n", to: directory)
    #expect(signal.wait(for: model) { $0.traffic.contains { $0.sequence == 10 } })
    let notices = model.snapshot.notices
    #expect(notices.contains { $0.contains("skipped a line that is not a record at byte") }, "\(notices)")
    #expect(!notices.contains { $0.contains("rotated away") }, "\(notices)")
  }

  @Test func aJumpToTheLargestNumberIsSaidAsAJump() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let wormhole = try Wormhole(directory: directory.path)
    for index in 0..<13 { try wormhole.passMessage(nil, identifier: "m\(index)") }
    let signal = UpdateSignal()
    let model = try model(directory, signal)
    defer { model.cancel() }
    try append(foreignRecord(TrafficRecord.maximumSequence) + "\n", to: directory)
    #expect(signal.wait(for: model) { $0.traffic.contains { $0.sequence == TrafficRecord.maximumSequence } })
    let notices = model.snapshot.notices
    #expect(notices.contains { $0.contains("numbering jumped from 13 to 9007199254740992") }, "\(notices)")
    #expect(!notices.contains { $0.contains("rotated away") }, "\(notices)")
  }

  @Test func aJournalThatCanBeReadAgainEndsItsNotice() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    try Wormhole(directory: directory.path).passMessage(nil, identifier: "a")
    let signal = UpdateSignal()
    let model = try model(directory, signal)
    defer { model.cancel() }
    let journal = directory.path + "/.wormhole-journal"
    #expect(unlink(journal) == 0)
    #expect(mkfifo(journal, 0o600) == 0)
    // A pass fails before its mailbox; the FIFO's creation is what the watcher sees.
    #expect(throws: WormholeError.self) {
      try Wormhole(directory: directory.path).passMessage(nil, identifier: "b")
    }
    #expect(signal.wait(for: model) { $0.notices.last?.contains("cannot be read") == true })
    #expect(unlink(journal) == 0)
    try Wormhole(directory: directory.path).passMessage(nil, identifier: "c")
    #expect(signal.wait(for: model) { $0.traffic.last?.identifier == "c" })
    let notices = model.snapshot.notices
    #expect(notices.last?.contains("can be read again") == true, "\(notices)")
  }
}
