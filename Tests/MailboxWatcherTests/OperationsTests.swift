import Foundation
import KeyedArchive
import MailboxModel
import Testing
import Wormhole
import WormholeVocabulary

@testable import MailboxWatcher

@Suite(.hangLimit) struct OperationsTests {
  @Test func passClearAndClearAllAreJournaledAndSeenByTheModel() throws {
    var configuration = ModelConfiguration()
    configuration.matchWindowMilliseconds = 3_000
    try withWatchedDirectory(configuration: configuration) { directory, model, signal in
      let operations = MailboxOperations(sender: "dashboard")
      try operations.pass(.string("one"), identifier: "a", directory: directory.name)
      try operations.pass(
        .string("two"), identifier: "b", directory: directory.name, transitingType: .coordinatedFile)
      try operations.pass(nil, identifier: "ping", directory: directory.name)
      #expect(
        signal.wait(for: model) {
          $0.directories[FileName(directory.path)]?.presentCount == 2 && $0.traffic.count == 3
        })
      try operations.clear(identifier: "a", directory: directory.name)
      try operations.clearAll(directory: directory.name)
      #expect(
        signal.wait(for: model) { state in
          state.nextDeadline == nil && state.directories[FileName(directory.path)]?.presentCount == 0
        })
      let kinds = model.snapshot.traffic.map(\.kind)
      #expect(kinds == [.passed, .passed, .notification, .cleared, .clearedAll])
      #expect(model.snapshot.traffic.allSatisfy { $0.sender == "dashboard" })
      #expect(model.snapshot.traffic[1].transiting == "coordinated-file")
    }
  }

  @Test func replayOfAHistoryVersionOrATrafficEntryIsMarkedAsReplay() throws {
    var configuration = ModelConfiguration()
    configuration.matchWindowMilliseconds = 3_000
    try withWatchedDirectory(configuration: configuration) { directory, model, signal in
      let operations = MailboxOperations(sender: "dashboard")
      let first = try operations.pass(.string("v1"), identifier: "m", directory: directory.name)
      #expect(
        signal.wait(for: model) { $0.mailbox("m", in: directory.path)?.current?.sequence == first.sequence })
      try operations.pass(.string("v2"), identifier: "m", directory: directory.name)
      #expect(signal.wait(for: model) { $0.mailbox("m", in: directory.path)?.history.count == 1 })
      // A history version, to another identifier.
      let old = try #require(model.snapshot.mailbox("m", in: directory.path)?.history.first)
      let replayed = try operations.replay(old, identifier: "copy", directory: directory.name)
      #expect(replayed.replayOf == first.sequence)
      let v1 = try KeyedArchiveEncoder().encodeBytes(.string("v1"))
      #expect(signal.wait(for: model) { $0.mailbox("copy", in: directory.path)?.current?.bytes == v1 })
      // A traffic entry, to its own mailbox.
      let state = model.snapshot
      let entry = try #require(state.traffic.first { $0.sequence == first.sequence })
      let again = try #require(try operations.replay(entry, in: state))
      #expect(again.replayOf == first.sequence && again.identifier == "m")
      #expect(signal.wait(for: model) { $0.mailbox("m", in: directory.path)?.current?.bytes == v1 })
      #expect(signal.wait(for: model) { $0.traffic.filter { $0.kind == .replayed }.count == 2 })
      // A version the journal never described is marked as a replay of 0.
      writeInPlace(directory.path + "/foreign.archive", v1)
      #expect(signal.wait(for: model) { $0.mailbox("foreign", in: directory.path)?.isPresent == true })
      let foreign = try #require(model.snapshot.mailbox("foreign", in: directory.path)?.current)
      #expect(try operations.replay(foreign, identifier: "foreign2", directory: directory.name).replayOf == 0)
    }
  }

  @Test func aReplayedNotificationIsMarkedAsAReplay() throws {
    try withWatchedDirectory { directory, model, signal in
      let operations = MailboxOperations(sender: "dashboard")
      let ring = try operations.pass(nil, identifier: "bell", directory: directory.name)
      #expect(signal.wait(for: model) { $0.traffic.contains { $0.sequence == ring.sequence } })
      let state = model.snapshot
      let entry = try #require(state.traffic.first { $0.sequence == ring.sequence })
      #expect(entry.kind == .notification)
      let again = try #require(try operations.replay(entry, in: state))
      #expect(again.kind == .notify && again.replayOf == ring.sequence)
    }
  }

  @Test func replayingAMessageTheModelNeverHeldSaysWhy() throws {
    let state = ModelState()
    let entry = TrafficEntry(
      id: 9, milliseconds: 0, kind: .passed, directory: "/nowhere", identifier: "m", size: 3)
    #expect(throws: OperationError.messageNotKept(entry: 9)) {
      try MailboxOperations().replay(entry, in: state)
    }
  }
}
