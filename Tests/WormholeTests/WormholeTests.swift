import Foundation
import Glibc
import KeyedArchive
import TestSupport
import Testing

@testable import Wormhole

@Suite struct WormholeTests {
  static let message = ArchivedValue.dictionary([
    ArchivedEntry(key: .string("buttonNumber"), value: .integer(1)),
    ArchivedEntry(key: .string("title"), value: .string("hi")),
  ])

  @Test func passWritesAnArchiveFoundationReads() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let record = try wormhole.passMessage(Self.message, identifier: "button")
    #expect(record.kind == .pass && record.identifier == "button" && record.outcome == .ok)
    let data = try #require(try wormhole.archive(withIdentifier: "button"))
    #expect(record.bytes == data.count)
    let root = try #require(try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) as? NSDictionary)
    #expect((root["buttonNumber"] as? NSNumber)?.intValue == 1)
    #expect(root["title"] as? String == "hi")
  }

  @Test func aPassNamesItsWriteInTheRecordAndOnTheMailbox() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let first = try wormhole.passMessage(Self.message, identifier: "button")
    let second = try wormhole.passMessage(Self.message, identifier: "button")
    let transfer = try #require(second.transfer)
    #expect(transfer.utf8.count == 16 && first.transfer != transfer)
    let descriptor = open(temporary.path + "/button.archive", O_RDONLY)
    defer { close(descriptor) }
    #expect(FileSystem.transferIdentifier(descriptor) == transfer)
    #expect(try wormhole.trafficRecords().last?.transfer == transfer)
    // A session's own identifier is kept as given, and a mailbox written by another program has none.
    let stored = try wormhole.passArchive(
      [UInt8](try #require(try wormhole.archive(withIdentifier: "button"))), identifier: "copy",
      details: TrafficDetails(device: "desk/watch", peer: "desk/phone", delivery: .delivered, transfer: "42"),
      recordedAs: .sessionFile)
    #expect(stored.transiting == "session-file" && stored.transfer == "42" && stored.peer == "desk/phone")
    let plain = open(temporary.path + "/plain.archive", O_WRONLY | O_CREAT, 0o600)
    defer { close(plain) }
    #expect(FileSystem.transferIdentifier(plain) == nil)
  }

  @Test func mailboxesAndDirectoriesArePrivate() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(
      applicationGroupIdentifier: "group.test", optionalDirectory: "wormhole", home: temporary.path + "/home")
    try wormhole.passMessage(Self.message, identifier: "button")
    let mailbox = try #require(FileSystem.status(wormhole.directory + "/button.archive"))
    #expect(mailbox.st_mode & 0o777 == 0o600)
    for directory in [
      "/home", "/home/AppGroup", "/home/AppGroup/group.test", "/home/AppGroup/group.test/wormhole",
    ] {
      #expect(
        FileSystem.status(temporary.path + directory).map { $0.st_mode & 0o777 } == 0o700, "\(directory)")
    }
    // No temporary file is left behind.
    #expect(
      try FileSystem.entries(of: wormhole.directory).sorted() == [".wormhole-journal", "button.archive"])
  }

  @Test func aMissingContainerIsAnErrorThatSaysWhatToDo() {
    var options = Wormhole.Options()
    options.createsDirectory = false
    #expect {
      try Wormhole(directory: "/nonexistent/wormhole", options: options)
    } throws: { error in
      (error as? WormholeError)?.description.contains(
        "does not exist (create it, or set Options.createsDirectory)") == true
    }
  }

  @Test func sessionTypesAreNotAvailableYet() {
    for type in [TransitingType.sessionContext, .sessionMessage, .sessionFile] {
      #expect(throws: WormholeError.transitingTypeUnavailable(type)) {
        try Wormhole(directory: NSTemporaryDirectory(), transitingType: type)
      }
    }
  }

  @Test func notificationOnlyLeavesTheMailboxAlone() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessage(Self.message, identifier: "button")
    let before = try wormhole.archive(withIdentifier: "button")
    let record = try wormhole.passMessage(nil, identifier: "button")
    #expect(record.kind == .notify && record.bytes == 0)
    #expect(try wormhole.archive(withIdentifier: "button") == before)
  }

  @Test func clearRemovesOneMailboxAndClearAllOnlyMailboxes() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessage(.string("a"), identifier: "a")
    try wormhole.passMessage(.string("b"), identifier: "b")
    try wormhole.clearMessageContents(forIdentifier: "a")
    #expect(try wormhole.archive(withIdentifier: "a") == nil)
    #expect(try wormhole.archive(withIdentifier: "b") != nil)
    // Clearing an empty mailbox is not an error.
    try wormhole.clearMessageContents(forIdentifier: "a")

    temporary.write("notes.txt", "keep")
    temporary.write("data.plist", "keep")
    temporary.write(".archive", "keep: not a valid identifier")
    try FileManager.default.createDirectory(
      atPath: temporary.path + "/dir.archive", withIntermediateDirectories: false)
    temporary.write("dir.archive/inner.archive", "keep")
    let outside = TemporaryDirectory()
    defer { outside.remove() }
    outside.write("target.archive", "keep")
    #expect(symlink(outside.path + "/target.archive", temporary.path + "/link.archive") == 0)

    try wormhole.clearAllMessageContents()
    #expect(try wormhole.identifiers() == ["dir"])  // the directory named like a mailbox stays
    #expect(!temporary.exists("b.archive") && !temporary.exists("link.archive"))
    #expect(temporary.contents("notes.txt") == "keep" && temporary.contents("data.plist") == "keep")
    #expect(
      temporary.contents(".archive") != nil && temporary.contents("dir.archive/inner.archive") == "keep")
    #expect(outside.contents("target.archive") == "keep")
    #expect(try wormhole.trafficRecords().map(\.kind) == [.pass, .pass, .clear, .clear, .clearAll])
  }

  @Test func readingRefusesLinksAndSpecialFilesWithoutHanging() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    temporary.write("secret", "secret")
    #expect(symlink(temporary.path + "/secret", temporary.path + "/link.archive") == 0)
    #expect(mkfifo(temporary.path + "/fifo.archive", 0o600) == 0)
    #expect(
      throws: WormholeError.notAMailbox(
        path: temporary.path + "/link.archive", reason: "it is a symbolic link, which is not followed")
    ) {
      try wormhole.archive(withIdentifier: "link")
    }
    #expect(
      throws: WormholeError.notAMailbox(
        path: temporary.path + "/fifo.archive", reason: "it is not a regular file")
    ) {
      try wormhole.archive(withIdentifier: "fifo")
    }
  }

  @Test func oversizedMailboxesAreReportedNotRead() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    var options = Wormhole.Options()
    options.maximumMessageBytes = 10
    let wormhole = try Wormhole(directory: temporary.path, options: options)
    temporary.write("big.archive", String(repeating: "x", count: 11))
    #expect(
      throws: WormholeError.messageTooLarge(path: temporary.path + "/big.archive", bytes: 11, limit: 10)
    ) {
      try wormhole.archive(withIdentifier: "big")
    }
  }

  @Test func aFailedWriteKeepsTheOldMessageAndIsJournaled() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessage(.string("old"), identifier: "x")
    let old = try wormhole.archive(withIdentifier: "x")
    // Make the rename fail: a mailbox that is a non-empty directory cannot be replaced.
    try FileManager.default.createDirectory(
      atPath: temporary.path + "/y.archive/sub", withIntermediateDirectories: true)
    #expect(throws: WormholeError.self) { try wormhole.passMessage(.string("new"), identifier: "y") }
    #expect(try wormhole.archive(withIdentifier: "x") == old)
    let last = try #require(try wormhole.trafficRecords().last)
    #expect(
      last.outcome == .failed && last.identifier == "y" && last.error?.contains("cannot replace") == true)
    // And no temporary file was left.
    #expect(try FileSystem.entries(of: temporary.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
  }

  @Test func codableValuesRoundTripAsPropertyLists() throws {
    struct Payload: Codable, Equatable {
      var name: String
      var count: Int
      var ratio: Double
      var tags: [String]
      var when: Date
    }
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let payload = Payload(
      name: "n", count: 3, ratio: 0.5, tags: ["a", "b"], when: Date(timeIntervalSinceReferenceDate: 10))
    try wormhole.passMessage(payload, identifier: "payload")
    #expect(try wormhole.message(withIdentifier: "payload", as: Payload.self) == payload)
    // Apple's side sees a plain NSDictionary.
    let data = try #require(try wormhole.archive(withIdentifier: "payload"))
    let root = try #require(try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) as? NSDictionary)
    #expect(root["name"] as? String == "n")
    #expect((root["tags"] as? [String]) == ["a", "b"])
  }

  @Test func messagesReadBackAsTheyWerePassed() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessage(Self.message, identifier: "button")
    #expect(try wormhole.message(withIdentifier: "button") == Self.message)
    #expect(try wormhole.message(withIdentifier: "absent") == nil)
  }
}

@Suite struct ListenerTests {
  @Test func everyListenerHearsPassesAndNotifications() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let listening = try Wormhole(directory: temporary.path)
    let sending = try Wormhole(directory: temporary.path)
    let first = Collector<ReceivedMessage>()
    let second = Collector<ReceivedMessage>()
    let other = Collector<ReceivedMessage>()
    let tokenA = try listening.listenForMessage(withIdentifier: "button") { first.append($0) }
    let tokenB = try listening.listenForMessage(withIdentifier: "button") { second.append($0) }
    let tokenC = try listening.listenForMessage(withIdentifier: "other") { other.append($0) }
    defer { [tokenA, tokenB, tokenC].forEach { $0.cancel() } }

    try sending.passMessage(WormholeTests.message, identifier: "button")
    let heard = first.wait(for: 1)
    #expect(heard.first?.message == WormholeTests.message)
    #expect(heard.first?.record.kind == .pass)
    #expect(second.wait(for: 1).first?.message == WormholeTests.message)

    try sending.passMessage(nil, identifier: "button")
    let notified = first.wait(for: 2)
    #expect(notified.count == 2 && notified[1].isNotificationOnly && notified[1].message == nil)
    #expect(other.values.isEmpty)
  }

  @Test func cancelledListenersHearNothingMore() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let cancelled = Collector<ReceivedMessage>()
    let kept = Collector<ReceivedMessage>()
    let token = try wormhole.listenForMessage(withIdentifier: "x") { cancelled.append($0) }
    let keptToken = try wormhole.listenForMessage(withIdentifier: "x") { kept.append($0) }
    defer { keptToken.cancel() }
    token.cancel()
    token.cancel()
    try wormhole.passMessage(.integer(1), identifier: "x")
    try wormhole.passMessage(.integer(2), identifier: "x")
    // The kept listener hears the last value; once it has, the cancelled one had its chance.
    for _ in 0..<2 where kept.values.last?.message != .integer(2) {
      _ = kept.wait(for: kept.values.count + 1)
    }
    #expect(kept.values.last?.message == .integer(2))
    #expect(cancelled.values.isEmpty)
  }

  @Test func stopListeningRemovesEveryListenerOfTheIdentifier() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let stopped = Collector<ReceivedMessage>()
    let witness = Collector<ReceivedMessage>()
    _ = try wormhole.listenForMessage(withIdentifier: "x") { stopped.append($0) }
    let token = try wormhole.listenForMessage(withIdentifier: "y") { witness.append($0) }
    defer { token.cancel() }
    wormhole.stopListening(forIdentifier: "x")
    try wormhole.passMessage(.integer(1), identifier: "x")
    try wormhole.passMessage(.integer(1), identifier: "y")
    #expect(witness.wait(for: 1).count == 1)
    #expect(stopped.values.isEmpty)
  }

  @Test func messagesArriveAsAnAsyncSequence() async throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let stream = try wormhole.messages(withIdentifier: "seq")
    try wormhole.passMessage(.string("one"), identifier: "seq")
    var iterator = stream.makeAsyncIterator()
    let received = await iterator.next()
    #expect(received?.message == .string("one"))
  }
}

@Suite struct TrafficJournalTests {
  @Test func concurrentWritersNeverInterleaveOrRepeatASequence() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let writers = try (0..<4).map { _ in try Wormhole(directory: temporary.path) }
    DispatchQueue.concurrentPerform(iterations: 4) { index in
      for count in 0..<250 {
        _ = try? writers[index].passMessage(.integer(Int64(count)), identifier: "w\(index)")
      }
    }
    let records = try writers[0].trafficRecords()
    #expect(records.count == 1000)
    #expect(records.map(\.sequence) == Array(1...1000))
    let lines = try #require(temporary.contents(".wormhole-journal")).split(separator: "\n")
    #expect(lines.count == 1000)
    for index in 0..<4 { #expect(try writers[0].message(withIdentifier: "w\(index)") == .integer(249)) }
  }

  @Test func aReaderTwoRotationsBehindRecoversTheGenerationInBetween() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    var options = Wormhole.Options()
    options.journalLimit = 4096
    let wormhole = try Wormhole(directory: temporary.path, options: options)
    try wormhole.passMessage(nil, identifier: "first")
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: false)
    #expect(reader.readAvailable().map(\.sequence) == [1])
    // Pass until the journal has rotated exactly twice while the reader sleeps, then a few more.
    var rotations = 0
    var rotatedInode: UInt64?
    var last: UInt64 = 1
    while rotations < 2 {
      last = try wormhole.passMessage(nil, identifier: "n\(last)").sequence
      let inode = FileSystem.status(temporary.path + "/.wormhole-journal.1").map { UInt64($0.st_ino) }
      if inode != rotatedInode {
        rotations += 1
        rotatedInode = inode
      }
    }
    for _ in 0..<5 { last = try wormhole.passMessage(nil, identifier: "tail").sequence }
    let seen = reader.readAvailable().map(\.sequence)
    #expect(seen == Array(2...last))
  }

  @Test func rotationKeepsNumberingAndAFollowingReaderMissesNothing() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    var options = Wormhole.Options()
    options.journalLimit = 4096
    let wormhole = try Wormhole(directory: temporary.path, options: options)
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: false)
    var seen: [UInt64] = []
    for index in 0..<200 {
      try wormhole.passMessage(nil, identifier: "n\(index)")
      if index % 7 == 0 { seen += reader.readAvailable().map(\.sequence) }
    }
    seen += reader.readAvailable().map(\.sequence)
    #expect(seen == Array(1...200))
    #expect(temporary.exists(".wormhole-journal.1"))
    let retained = try wormhole.trafficRecords()
    #expect(retained.last?.sequence == 200)
    #expect(retained.map(\.sequence) == Array((201 - UInt64(retained.count))...200))
    // Bounded: two files of about the limit each.
    let sizes = [".wormhole-journal", ".wormhole-journal.1"].compactMap {
      FileSystem.status(temporary.path + "/" + $0)?.st_size
    }
    #expect(sizes.allSatisfy { $0 < 4096 + 512 })
  }

  @Test func aTornLastLineIsSkippedAndNumberingContinues() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessage(nil, identifier: "a")
    let handle = try #require(FileHandle(forWritingAtPath: temporary.path + "/.wormhole-journal"))
    handle.seekToEndOfFile()
    handle.write(Data("{\"seq\":2,\"ti".utf8))
    try handle.close()
    // The next writer ends the torn line before its own record, so nothing real is lost.
    let other = try Wormhole(directory: temporary.path)
    try other.passMessage(nil, identifier: "b")
    try other.passMessage(nil, identifier: "c")
    let records = try other.trafficRecords()
    #expect(records.map(\.identifier) == ["a", "b", "c"])
    #expect(records.map(\.sequence) == [1, 2, 3])
  }
}

@Suite struct CoordinatedFileTests {
  @Test func coordinatedWritersSerializeAndReadersSeeWholeMessages() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let writers = try (0..<3).map { _ in
      try Wormhole(directory: temporary.path, transitingType: .coordinatedFile)
    }
    let big = (0..<2000).map { ArchivedValue.integer(Int64($0)) }
    DispatchQueue.concurrentPerform(iterations: 3) { index in
      for _ in 0..<30 {
        if index == 2 {
          // A reader racing the writers always decodes a complete message.
          if let value = try? writers[index].message(withIdentifier: "shared") {
            #expect(value == .array(big) || value == .string("small"))
          }
        } else {
          _ = try? writers[index].passMessage(
            index == 0 ? .array(big) : .string("small"), identifier: "shared")
        }
      }
    }
    let records = try writers[0].trafficRecords()
    #expect(
      records.count == 60 && records.allSatisfy { $0.transiting == "coordinated-file" && $0.outcome == .ok })
    #expect(temporary.exists(".wormhole-lock"))
  }

  /// The lock offset is a contract between processes: FNV-1a of the identifier's bytes, 40 bits.
  @Test func lockOffsetsAreTheDocumentedFNV1a() {
    let a: UInt64 = 0xaf63_dc4c_8601_ec8c
    let empty: UInt64 = 0xcbf2_9ce4_8422_2325
    #expect(Coordination.offset(for: "a") == Int64(a & 0xFF_FFFF_FFFF) + 1)
    #expect(Coordination.offset(for: "") == Int64(empty & 0xFF_FFFF_FFFF) + 1)
  }

  @Test func distinctIdentifiersUseDistinctLockRanges() {
    let offsets = Set((0..<1000).map { Coordination.offset(for: "identifier-\($0)") })
    #expect(offsets.count == 1000)
    #expect(offsets.allSatisfy { $0 > 0 })
  }
}

@Suite struct TrafficJournalFollowerTests {
  @Test func aFollowerHearsEveryRecordAcrossRotationsAndBeforeTheJournalExists() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let collected = Collector<UInt64>()
    // Started before the journal exists: it watches the directory for its creation.
    let follower = try TrafficJournalFollower(directory: temporary.path) { records in
      for record in records { collected.append(record.sequence) }
    }
    defer { follower.cancel() }
    var options = Wormhole.Options()
    options.journalLimit = 4096
    let wormhole = try Wormhole(directory: temporary.path, options: options)
    // Batches smaller than a generation (about 45 records), each awaited, so the follower is
    // never more than one rotation behind: what is tested is the rotation hand-over itself.
    // Awaited for long (a machine at load 10 once took over 10 s): a batch not heard by then
    // fails as such, not as records lost to a second rotation the follower could not see.
    for batch in 0..<10 {
      for index in 0..<30 { try wormhole.passMessage(nil, identifier: "r\(batch)-\(index)") }
      let heard = collected.wait(for: (batch + 1) * 30, seconds: 60)
      try #require(
        heard.count >= (batch + 1) * 30, "batch \(batch): the follower heard \(heard.count) records")
    }
    #expect(collected.values == Array(1...300))
    #expect(temporary.exists(".wormhole-journal.1"))
  }

  @Test func aCancelledFollowerCallsNothingMore() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let collected = Collector<UInt64>()
    let follower = try TrafficJournalFollower(directory: temporary.path) { records in
      for record in records { collected.append(record.sequence) }
    }
    try wormhole.passMessage(nil, identifier: "a")
    #expect(collected.wait(for: 1) == [1])
    follower.cancel()
    try wormhole.passMessage(nil, identifier: "b")
    // A second follower hears "c"; by then the cancelled one would have heard "b" if it could.
    let witness = Collector<UInt64>()
    let second = try TrafficJournalFollower(directory: temporary.path) { records in
      for record in records { witness.append(record.sequence) }
    }
    defer { second.cancel() }
    try wormhole.passMessage(nil, identifier: "c")
    #expect(witness.wait(for: 1) == [3])
    #expect(collected.values == [1])
  }
}

/// An app's own `NSSecureCoding` class, as MMWormhole users pass them.
final class Pin: NSObject, NSSecureCoding {
  static var supportsSecureCoding: Bool { true }
  let x: Int
  let label: String

  init(x: Int, label: String) {
    self.x = x
    self.label = label
  }

  required init?(coder: NSCoder) {
    guard let label = coder.decodeObject(of: NSString.self, forKey: "label") as String? else { return nil }
    self.x = coder.decodeInteger(forKey: "x")
    self.label = label
  }

  func encode(with coder: NSCoder) {
    coder.encode(x, forKey: "x")
    coder.encode(label as NSString, forKey: "label")
  }
}

@Suite struct CodingObjectTests {
  @Test func codingObjectsRoundTripThroughFoundation() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessageObject(Pin(x: 3, label: "here"), identifier: "pin")
    let pin = try #require(try wormhole.messageObject(withIdentifier: "pin", ofClasses: [Pin.self]) as? Pin)
    #expect(pin.x == 3 && pin.label == "here")
    // And the inspector shows it without instantiating the class.
    guard case .object(let object)? = try wormhole.message(withIdentifier: "pin") else {
      Issue.record("not shown as an object")
      return
    }
    #expect(object.className.hasSuffix("Pin"))
    #expect(object.fields.contains(ArchivedField(key: "x", value: .integer(3))))
    #expect(object.fields.contains(ArchivedField(key: "label", value: .string("here"))))
  }

  @Test func classesNotAllowedAreRefused() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    try wormhole.passMessageObject(Pin(x: 1, label: "a"), identifier: "pin")
    // Foundation would stop the process here; the library refuses first and says why.
    #expect {
      try wormhole.messageObject(withIdentifier: "pin", ofClasses: [])
    } throws: { error in
      (error as? WormholeError)?.description.contains("Pin, which is not among the classes allowed") == true
    }
    // Property-list messages need no classes.
    try wormhole.passMessage(.array([.integer(1), .string("x")]), identifier: "list")
    let list = try wormhole.messageObject(withIdentifier: "list", ofClasses: []) as? NSArray
    #expect(list?.count == 2)
  }

  @Test func deeplyNestedArchivesNeverReachFoundation() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    var value = ArchivedValue.array([])
    // Well past the 128-level cap the library vets for, and shallow enough for a test thread.
    for _ in 0..<1_000 { value = .array([value]) }
    let archive = try KeyedArchiveEncoder(maximumDepth: 10_000).encode(value)
    try wormhole.passArchive(archive, identifier: "deep")
    #expect {
      try wormhole.messageObject(withIdentifier: "deep", ofClasses: [])
    } throws: { error in
      (error as? WormholeError)?.description.contains("deep") == true
    }
  }
}

@Suite struct ListenerQueueTests {
  @Test func aListenerOnItsOwnQueueCanCancelItselfWithoutDeadlock() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    var options = Wormhole.Options()
    options.listenerQueue = DispatchQueue(label: "test.listeners")
    let wormhole = try Wormhole(directory: temporary.path, options: options)
    let heard = Collector<ReceivedMessage>()
    let holder = TokenHolder()
    holder.token = try wormhole.listenForMessage(withIdentifier: "once") { received in
      heard.append(received)
      holder.token?.cancel()  // the last listener: this stops the follower from its own queue
    }
    try wormhole.passMessage(.integer(1), identifier: "once")
    #expect(heard.wait(for: 1).count == 1)
    // A new listener afterwards still works: nothing is stuck.
    let after = Collector<ReceivedMessage>()
    let token = try wormhole.listenForMessage(withIdentifier: "once") { after.append($0) }
    defer { token.cancel() }
    try wormhole.passMessage(.integer(2), identifier: "once")
    #expect(after.wait(for: 1).first?.message == .integer(2))
    #expect(heard.values.count == 1)
  }
}

final class TokenHolder: @unchecked Sendable {
  var token: ListenerToken?
}

@Suite struct MessageDecodingTests {
  @Test func repeatedLongValuesInACodableMessageDecodeBack() throws {
    struct Twins: Codable, Equatable {
      var first: String
      var second: String
      var lists: [[Int]]
    }
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let long = String(repeating: "shared text ", count: 40)
    let twins = Twins(first: long, second: long, lists: [[1, 2], [1, 2]])
    try wormhole.passMessage(twins, identifier: "twins")
    #expect(try wormhole.message(withIdentifier: "twins", as: Twins.self) == twins)
  }

  @Test func aDeepMailboxReadsOnA512KilobyteThread() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    var value = ArchivedValue.integer(7)
    for _ in 0..<400 { value = .array([value]) }
    try wormhole.passMessage(value, identifier: "deep")
    let done = DispatchSemaphore(value: 0)
    let result = Collector<Bool>()
    let thread = Thread {
      let read = try? wormhole.message(withIdentifier: "deep")
      result.append(read != nil)
      done.signal()
    }
    thread.stackSize = 512 * 1024
    thread.start()
    done.wait()
    #expect(result.values == [true])
  }
}

@Suite struct ListenerRaceTests {
  /// The last other listener leaves (stopping the follower) after a new listener found the
  /// follower running but before it registered: the new one must start a follower of its own.
  @Test func aListenerRegisteredAsTheLastOneLeavesStillHears() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let leaving = try wormhole.listenForMessage(withIdentifier: "leaving") { _ in }
    wormhole.listeners.hookBeforeRegistering.withLock { $0 = { leaving.cancel() } }
    let heard = Collector<ReceivedMessage>()
    let token = try wormhole.listenForMessage(withIdentifier: "kept") { heard.append($0) }
    defer { token.cancel() }
    try wormhole.passMessage(.integer(1), identifier: "kept")
    #expect(heard.wait(for: 1).first?.message == .integer(1))
  }

  /// Listeners come and go on one thread while another adds one that must hear: the follower may
  /// be stopped by the last removal at any moment, and a new listener must never be left without one.
  @Test(.hangLimit) func aListenerAddedWhileOthersLeaveAlwaysHears() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    for round in 0..<30 {
      let churn = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        for _ in 0..<40 { (try? wormhole.listenForMessage(withIdentifier: "churn") { _ in })?.cancel() }
        churn.signal()
      }
      let heard = Collector<ReceivedMessage>()
      let token = try wormhole.listenForMessage(withIdentifier: "kept") { heard.append($0) }
      churn.wait()
      try wormhole.passMessage(.integer(Int64(round)), identifier: "kept")
      #expect(heard.wait(for: 1).first?.message == .integer(Int64(round)), "round \(round)")
      token.cancel()
    }
  }
}

@Suite struct FollowerLifetimeTests {
  // Each test first waits for one delivery, so that the follower's thread is inside its loop
  // when the last reference goes; only then could the thread keep it alive. The thread may
  // still be finishing that wake-up, holding the follower for a moment, so the release is
  // awaited (it has no event to wait on; the deadline only bounds a failure).
  private func released(_ isGone: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while !isGone() {
      if Date() > deadline { return false }
      usleep(1000)
    }
    return true
  }

  @Test func aFollowerNobodyHoldsEndsWithoutBeingCancelled() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    weak var follower: TrafficJournalFollower?
    do {
      let delivered = Collector<Int>()
      let strong = try TrafficJournalFollower(directory: temporary.path) { delivered.append($0.count) }
      follower = strong
      try wormhole.passMessage(nil, identifier: "wake")
      #expect(delivered.wait(for: 1).count == 1)
    }
    #expect(released { follower == nil })
  }

  @Test func droppingAWormholeWithListenersStopsItsFollower() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    weak var follower: TrafficJournalFollower?
    weak var released: Wormhole?
    do {
      let wormhole = try Wormhole(directory: temporary.path)
      let heard = Collector<ReceivedMessage>()
      _ = try wormhole.listenForMessage(withIdentifier: "never-cancelled") { heard.append($0) }
      try wormhole.passMessage(nil, identifier: "never-cancelled")
      #expect(heard.wait(for: 1).count == 1)
      follower = wormhole.listeners.currentFollower
      released = wormhole
      #expect(follower != nil)
    }
    #expect(self.released { released == nil && follower == nil })
  }
}

@Suite struct DamagedJournalTests {
  @Test func anOverlongLineIsDroppedAndTheRecordsAroundItKept() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    let wormhole = try Wormhole(directory: temporary.path)
    let reader = TrafficJournalReader(directory: temporary.path, startingAtEnd: false)
    try wormhole.passMessage(nil, identifier: "before")
    #expect(reader.readAvailable().map(\.identifier) == ["before"])
    // A foreign writer appends 1 MiB without a newline, in pieces, then one.
    let handle = try #require(FileHandle(forWritingAtPath: temporary.path + "/.wormhole-journal"))
    handle.seekToEndOfFile()
    for _ in 0..<16 {
      handle.write(Data(repeating: UInt8(ascii: "x"), count: 64 * 1024))
      #expect(reader.readAvailable().isEmpty)
    }
    handle.write(Data("\n".utf8))
    try handle.close()
    try wormhole.passMessage(nil, identifier: "after")
    #expect(reader.readAvailable().map(\.identifier) == ["after"])
    #expect(try wormhole.trafficRecords().map(\.identifier) == ["before", "after"])
  }

  @Test func senderLabelsAreCutToKeepRecordsShort() throws {
    let temporary = TemporaryDirectory()
    defer { temporary.remove() }
    var options = Wormhole.Options()
    options.sender = String(repeating: "é", count: 200)
    let wormhole = try Wormhole(directory: temporary.path, options: options)
    let record = try wormhole.passMessage(nil, identifier: "x")
    #expect(record.sender == String(repeating: "é", count: 64))
    #expect(record.sender.utf8.count <= Wormhole.maximumSenderLength)
  }
}
