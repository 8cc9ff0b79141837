import Foundation
import Glibc
import KeyedArchive
import Synchronization
import Testing

@testable import Wormhole

/// A transiting of a test's own: messages in memory, the journal in a directory. With
/// `notifies` off it behaves as a session send: its posts are traffic records only.
final class MemoryTransiting: WormholeTransiting {
  let directory: String
  let notifies: Bool
  let stored = Mutex<[String: [UInt8]]>([:])
  let inbox = Mutex<TransitingInbox?>(nil)

  init(directory: String, notifies: Bool = true) {
    self.directory = directory
    self.notifies = notifies
  }

  var transitingType: TransitingType { notifies ? .file : .sessionMessage }
  var recordDetails: TrafficDetails { TrafficDetails(device: "desk/phone", peer: "desk/watch") }

  func writeMessage(_ archive: [UInt8], identifier: String, transfer: String) throws(WormholeError)
    -> TransitingWrite
  {
    if identifier == "refused" { throw .sessionFailed(.sessionMessage, code: 7007, reason: "not reachable") }
    stored.withLock { $0[identifier] = archive }
    return notifies ? .notified : .handedOff(.delivered)
  }

  func message(withIdentifier identifier: String, limit: Int) throws(WormholeError) -> [UInt8]? {
    stored.withLock { $0[identifier] }
  }

  func deleteMessage(withIdentifier identifier: String) throws(WormholeError) {
    _ = stored.withLock { $0.removeValue(forKey: identifier) }
  }

  func deleteAllMessages() throws(WormholeError) { stored.withLock { $0 = [:] } }

  var deliversIncomingMessages: Bool { !notifies }
  func deliverIncomingMessages(to inbox: TransitingInbox) { self.inbox.withLock { $0 = inbox } }
}

@Suite struct TransitingProtocolTests {
  static let message = ArchivedValue.string("hello")

  @Test func theFileTypesAreTransitingsOfTheirOwn() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let archive = try KeyedArchiveEncoder().encodeBytes(Self.message)
    for transiting in [
      FileTransiting(directory: temporary.path + "/plain/") as any WormholeTransiting,
      CoordinatedFileTransiting(directory: temporary.path + "/coordinated"),
    ] {
      try FileSystem.makeDirectories(transiting.directory)
      #expect(
        try transiting.writeMessage(archive, identifier: "a", transfer: "0123456789abcdef") == .notified)
      #expect(try transiting.message(withIdentifier: "a", limit: 1 << 20) == archive)
      #expect(throws: WormholeError.self) { try transiting.message(withIdentifier: "a", limit: 3) }
      let descriptor = open(transiting.directory + "/a.archive", O_RDONLY)
      #expect(FileSystem.transferIdentifier(descriptor) == "0123456789abcdef")
      close(descriptor)
      try transiting.deleteMessage(withIdentifier: "a")
      #expect(try transiting.message(withIdentifier: "a", limit: 1 << 20) == nil)
      _ = try transiting.writeMessage(archive, identifier: "b", transfer: "1")
      try transiting.deleteAllMessages()
      #expect(try FileSystem.entries(of: transiting.directory).filter { $0.hasSuffix(".archive") }.isEmpty)
    }
    #expect(FileTransiting(directory: "/x//").directory == "/x")
    // The old initializers choose them.
    #expect(try Wormhole(directory: temporary.path).transiting is FileTransiting)
    #expect(
      try Wormhole(directory: temporary.path, transitingType: .coordinatedFile).transiting
        is CoordinatedFileTransiting)
    #expect(
      try Wormhole(directory: temporary.path, transitingType: .coordinatedFile).transitingType
        == .coordinatedFile)
  }

  @Test func aWormholeOnAFileTransitingIsTheWormholeOnItsDirectory() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(transiting: CoordinatedFileTransiting(directory: temporary.path))
    let heard = Collector<ReceivedMessage>()
    let token = try wormhole.listenForMessage(withIdentifier: "a") { heard.append($0) }
    defer { token.cancel() }
    let record = try wormhole.passMessage(Self.message, identifier: "a")
    #expect(record.transiting == "coordinated-file" && record.delivery == nil)
    #expect(heard.wait(for: 1).first?.message == Self.message)
    #expect(try Wormhole(directory: temporary.path).message(withIdentifier: "a") == Self.message)
    try wormhole.clearAllMessageContents()
    #expect(try wormhole.identifiers().isEmpty)
  }

  @Test func aTransitingOfOnesOwnPlugsIn() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let memory = MemoryTransiting(directory: temporary.path + "/memory")
    let wormhole = try Wormhole(transiting: memory)
    let heard = Collector<ReceivedMessage>()
    let token = try wormhole.listenForMessage(withIdentifier: "a") { heard.append($0) }
    defer { token.cancel() }
    let record = try wormhole.passMessage(Self.message, identifier: "a")
    // Stored by the transiting, not in a file; journaled with its device fields; heard through
    // the journal, read back through the transiting.
    #expect(memory.stored.withLock { $0["a"] } != nil)
    #expect(!FileManager.default.fileExists(atPath: temporary.path + "/memory/a.archive"))
    #expect(record.device == "desk/phone" && record.peer == "desk/watch" && record.transfer?.count == 16)
    #expect(try wormhole.trafficRecords().last == record)
    #expect(heard.wait(for: 1).first?.message == Self.message)
    #expect(try wormhole.message(withIdentifier: "a") == Self.message)
    try wormhole.clearMessageContents(forIdentifier: "a")
    #expect(try wormhole.message(withIdentifier: "a") == nil)
    #expect(try wormhole.trafficRecords().last?.kind == .clear)
  }

  @Test func aTransitingThatDeliversItselfRingsTheListenersAndNotTheJournal() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let memory = MemoryTransiting(directory: temporary.path, notifies: false)
    let wormhole = try Wormhole(transiting: memory)
    let own = Collector<ReceivedMessage>()
    let token = try wormhole.listenForMessage(withIdentifier: "a") { own.append($0) }
    defer { token.cancel() }
    // A file wormhole on the same directory follows its journal.
    let files = try Wormhole(directory: temporary.path)
    let journal = Collector<ReceivedMessage>()
    let fileTokens = try ["a", "b"].map { identifier in
      try files.listenForMessage(withIdentifier: identifier) { journal.append($0) }
    }
    defer { fileTokens.forEach { $0.cancel() } }

    let sent = try wormhole.passMessage(Self.message, identifier: "a")
    #expect(
      sent.transiting == "session-message" && sent.delivery == .delivered && sent.device == "desk/phone")
    #expect(throws: WormholeError.sessionFailed(.sessionMessage, code: 7007, reason: "not reachable")) {
      try wormhole.passMessage(Self.message, identifier: "refused")
    }
    let failed = try #require(try wormhole.trafficRecords().last)
    #expect(failed.outcome == .failed && failed.delivery == .failed && failed.identifier == "refused")
    // The file wormhole hears the real passes after them, and not the session's traffic records.
    try files.passMessage(.string("b"), identifier: "b")
    try files.passMessage(.string("file"), identifier: "a")
    let heardByFile = journal.wait(for: 2)
    #expect(heardByFile.map(\.identifier) == ["b", "a"])
    #expect(heardByFile.map(\.message) == [.string("b"), .string("file")])

    // What arrives from elsewhere reaches the wormhole's own listeners only.
    let inbox = try #require(memory.inbox.withLock { $0 })
    let archive = try KeyedArchiveEncoder().encodeBytes(.string("from the watch"))
    inbox.deliver(
      archive, identifier: "a", transiting: .sessionMessage,
      details: TrafficDetails(device: "desk/phone", peer: "desk/watch", delivery: .delivered), milliseconds: 5
    )
    inbox.deliver(
      [1, 2, 3], identifier: "a", transiting: .sessionMessage, details: TrafficDetails(), milliseconds: 6)
    let received = own.wait(for: 2)
    #expect(received.count == 2)
    #expect(received.first?.message == .string("from the watch") && received.first?.record.sequence == 0)
    #expect(
      received.first?.record.sender == "desk/watch" && received.first?.record.transiting == "session-message")
    #expect(received.last?.message == nil && received.last?.failure != nil)
    #expect(own.values.count == 2 && journal.values.count == 2)
  }

  @Test func availabilitySaysWhatAWormholeNeeds() {
    #expect(TransitingType.allCases.filter(\.isAvailable) == [.file, .coordinatedFile])
    #expect(TransitingType.allCases.filter(\.needsPair) == [.sessionContext, .sessionMessage, .sessionFile])
    #expect(
      WormholeError.transitingTypeUnavailable(.sessionFile).description.contains(
        "Wormhole(pair:role:transitingType:applicationGroup:home:)"))
  }
}
