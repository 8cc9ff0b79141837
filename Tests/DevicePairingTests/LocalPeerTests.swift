import DevicePairing
import Dispatch
import Foundation
import Glibc
import PeerSession
import Synchronization
import Testing

/// Peers of this process over the real local link (sockets, run locks, advertisement files under
/// a hermetic home): the session limit, the mesh, unreliable drops, resources cancelled and cut
/// short, and their traffic records. Waits are on events, never on time.
@Suite struct LocalPeerTests {
  /// A running peer with its events collected.
  final class Peer: Sendable {
    let peer: LocalPeer
    let events = Collector<PeerEvent>()

    init(
      _ name: String, home: String, service: String = "chat", advertise: Bool = false, browse: Bool = false,
      policy: InvitationPolicy = .always, receiveQueueLimit: Int = 256,
      handler: (@Sendable (PeerEvent) -> Void)? = nil
    ) throws {
      peer = try LocalPeer(
        name: try PeerName(name), service: try ServiceType(service), home: home,
        receiveQueueLimit: receiveQueueLimit)
      let events = self.events
      peer.setEventHandler { event in
        handler?(event)
        events.append(event)
      }
      try peer.start(advertising: advertise ? DiscoveryInfo() : nil, policy: policy, browsing: browse)
    }

    var identity: PeerIdentity { peer.identity }

    /// Waits until `other` is found.
    func find(_ other: Peer) -> Bool {
      events.wait { $0.contains(.found(other.identity, info: DiscoveryInfo())) }
        .contains(.found(other.identity, info: DiscoveryInfo()))
    }

    func isConnected(to other: Peer) -> Bool {
      let connected = PeerEvent.stateChanged(other.identity, .connected, reason: nil)
      return events.wait { $0.contains(connected) }.contains(connected)
    }

    /// A control request, as the verbs send it.
    func request(_ fields: [String]) -> PeerControlMessage { peer.perform(PeerControlMessage(text: fields)) }

    /// The journal's records, oldest first (those of every event handed over so far included).
    var records: [String] {
      peer.flushJournal()
      let path = peer.directory.peerPath(identity.id) + "/.wormhole-journal"
      return (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").map(String.init)
        ?? []
    }

    func stop() { peer.stop() }
  }

  /// A sparse file of `bytes` (nothing written to disk): a resource that takes a while.
  static func sparseFile(_ path: String, bytes: Int) -> Bool {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer { _ = close(descriptor) }
    return descriptor >= 0 && ftruncate(descriptor, off_t(bytes)) == 0
  }

  @Test func theNinthPeerIsRefused() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let hub = try Peer("hub", home: home.path, browse: true)
    var others: [Peer] = []
    for index in 1...8 { others.append(try Peer("p\(index)", home: home.path, advertise: true)) }
    defer {
      for peer in others { peer.stop() }
      hub.stop()
    }
    for (index, other) in others.enumerated() {
      #expect(hub.find(other))
      let answer = hub.request(["invite", other.identity.description, "", "10"])
      if index < 7 {
        #expect(answer.text(0) == "ok", "\(answer.text(2))")
      } else {
        #expect(answer.text(0) == "error" && answer.text(1) == "3", "\(answer.fields.count)")
        #expect(answer.text(2).contains("the session is full: at most 8 peers"), "\(answer.text(2))")
      }
    }
    #expect(hub.peer.engine.connectedPeers.count == 7)
  }

  @Test func socketPathsLongerThanSunPathStillConnect() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let deep = home.path + "/" + String(repeating: "d", count: 120)
    #expect(mkdir(deep, 0o700) == 0)
    let host = try Peer("host", home: deep, advertise: true)
    let guest = try Peer("guest", home: deep, browse: true)
    defer { [host, guest].forEach { $0.stop() } }
    #expect(host.peer.directory.socketPath(host.identity.id).utf8.count > 108)
    #expect(guest.find(host))
    #expect(guest.request(["invite", "host", "", "10"]).text(0) == "ok")
    #expect(guest.request(["send", "host", "reliable", "true"]).text(0) == "ok")
    let events = host.events.wait { $0.contains { $0.isData } }
    #expect(events.contains { $0.isData })
    let status = RunningPeer.all(home: deep)
    #expect(status.map(\.identity).sorted() == [guest.identity, host.identity].sorted())
    let answer = PeerControlChannel.exchange(
      PeerControlMessage(text: ["status"]), path: host.peer.directory.controlSocketPath(host.identity.id),
      seconds: 5)
    #expect(
      answer?.text(1).contains("connected \(guest.identity)") == true, "\(answer?.text(1) ?? "no answer")")
  }

  @Test func aThreePeerMeshSendsThroughTheCommonPeer() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let left = try Peer("left", home: home.path, advertise: true)
    let middle = try Peer("middle", home: home.path, advertise: true, browse: true)
    let right = try Peer("right", home: home.path, browse: true)
    defer { [left, middle, right].forEach { $0.stop() } }
    #expect(middle.find(left) && right.find(middle))
    #expect(middle.request(["invite", "left", "", "10"]).text(0) == "ok")
    #expect(right.request(["invite", "middle", "", "10"]).text(0) == "ok")
    // Right learns of left through middle, and left of right: one mesh.
    #expect(right.isConnected(to: left) && left.isConnected(to: right))
    #expect(right.peer.engine.route(to: left.identity) == middle.identity)
    let sent = right.request(["send", "left,middle", "reliable", "{\"hop\":1}"])
    #expect(sent.text(0) == "ok", "\(sent.text(2))")
    let data = PeerEvent.data(Array("{\"hop\":1}".utf8), from: right.identity, mode: .reliable)
    #expect(left.events.wait { $0.contains(data) }.contains(data))
    #expect(middle.events.wait { $0.contains(data) }.contains(data))
  }

  @Test func reliableDataKeepsItsOrderAndNotConnectedIsRefused() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let host = try Peer("host", home: home.path, advertise: true)
    let stranger = try Peer("stranger", home: home.path, advertise: true)
    let guest = try Peer("guest", home: home.path, browse: true)
    defer { [host, stranger, guest].forEach { $0.stop() } }
    #expect(guest.find(host) && guest.find(stranger))
    #expect(guest.request(["invite", "host", "", "10"]).text(0) == "ok")
    for index in 0..<500 { #expect(guest.request(["send", "host", "reliable", "\(index)"]).text(0) == "ok") }
    let received = host.events.wait { $0.filter(\.isData).count >= 500 }.compactMap(\.dataText)
    #expect(received == (0..<500).map(String.init))
    let refused = guest.request(["send", "host,stranger", "reliable", "1"])
    #expect(refused.text(0) == "error" && refused.text(1) == "3")
    #expect(refused.text(2).contains("not connected: \(stranger.identity)"), "\(refused.text(2))")
    // Every send is a record: 500 delivered and the refusal, failed with the error.
    let records = guest.records.filter { $0.contains("\"kind\":\"peer-data\"") }
    #expect(records.count == 501)
    #expect(records.last?.contains("\"delivery\":\"failed\"") == true)
    #expect(records.last?.contains("\"peer\":\"host#") == true)
  }

  @Test func unreliableDropsAreCountedUnderAFlood() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let gate = DispatchSemaphore(value: 0)
    let held = Atomic<Bool>(true)
    let slow = try Peer(
      "slow", home: home.path, advertise: true, receiveQueueLimit: 8,
      handler: { event in
        // The first message holds the handler up until the flood has been sent.
        if case .data = event, held.exchange(false, ordering: .relaxed) { gate.wait() }
      })
    let fast = try Peer("fast", home: home.path, browse: true)
    defer { [slow, fast].forEach { $0.stop() } }
    #expect(fast.find(slow))
    #expect(fast.request(["invite", "slow", "", "10"]).text(0) == "ok")
    let count = 400
    for index in 0..<count { _ = fast.request(["send", "slow", "unreliable", "\(index)"]) }
    // Wait until the link has handed them all over (the engine counts what it drops).
    let deadline = Date() + 20
    while slow.peer.engine.unreliableDrops + 9 < count && Date() < deadline { usleep(1000) }
    gate.signal()
    let events = slow.events.wait(seconds: 20) { events in
      events.filter(\.isData).count + events.map(\.droppedCount).reduce(0, +) >= count
    }
    let received = events.filter(\.isData).count
    let dropped = events.map(\.droppedCount).reduce(0, +)
    #expect(dropped > 0)
    #expect(received + dropped == count)
    #expect(slow.peer.engine.unreliableDrops == dropped)
    let records = slow.records.filter {
      $0.contains("unreliable messages dropped") || $0.contains("unreliable message dropped")
    }
    #expect(!records.isEmpty)
    #expect(records.allSatisfy { $0.contains("\"delivery\":\"failed\"") && $0.contains("\"peer\":\"fast#") })
  }

  @Test func aResourceIsCancelledByTheReceiver() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let cancelled = Atomic<Bool>(false)
    let receiverBox = Mutex<LocalPeer?>(nil)
    let receiver = try Peer(
      "receiver", home: home.path, advertise: true,
      handler: { event in
        guard case .resource(.progressed(let progress)) = event, !cancelled.exchange(true, ordering: .relaxed)
        else { return }
        // Not from the handler's own thread: the engine calls it with nothing locked, but a
        // request from elsewhere is what an operator does.
        let peer = receiverBox.withLock { $0 }
        DispatchQueue.global().async { try? peer?.engine.cancelResource(progress.id) }
      })
    receiverBox.withLock { $0 = receiver.peer }
    let sender = try Peer("sender", home: home.path, browse: true)
    defer { [receiver, sender].forEach { $0.stop() } }
    #expect(sender.find(receiver))
    #expect(sender.request(["invite", "receiver", "", "10"]).text(0) == "ok")
    let file = home.path + "/big.bin"
    #expect(Self.sparseFile(file, bytes: 256 << 20))
    let answer = sender.request(["send-resource", "receiver", file, "big.bin"])
    #expect(
      answer.text(0) == "error" && answer.text(2).contains("cancelled by receiver#"), "\(answer.text(2))")
    #expect(
      sender.events.values.contains { if case .resource(.cancelled(_, true)) = $0 { true } else { false } })
    // The receiver's own cancel event, after which its record is written.
    let own = receiver.events.wait { events in
      events.contains { if case .resource(.cancelled(_, false)) = $0 { true } else { false } }
    }
    #expect(own.contains { if case .resource(.cancelled(_, false)) = $0 { true } else { false } })
    let resources =
      (try? FileManager.default.contentsOfDirectory(
        atPath: receiver.peer.directory.resourcesPath(receiver.identity.id))) ?? []
    #expect(resources.isEmpty, "\(resources)")
    #expect(
      receiver.records.contains {
        $0.contains("\"kind\":\"peer-resource\"") && $0.contains("\"delivery\":\"cancelled\"")
      })
    #expect(
      sender.records.contains {
        $0.contains("\"kind\":\"peer-resource\"") && $0.contains("\"delivery\":\"cancelled\"")
      })
  }

  @Test func aResourceArrivesWithProgressAndIsRecordedOnBothSides() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let receiver = try Peer("receiver", home: home.path, advertise: true)
    let sender = try Peer("sender", home: home.path, browse: true)
    defer { [receiver, sender].forEach { $0.stop() } }
    #expect(sender.find(receiver))
    #expect(sender.request(["invite", "receiver", "", "10"]).text(0) == "ok")
    let file = home.path + "/photo.bin"
    let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    #expect(FileManager.default.createFile(atPath: file, contents: Data(bytes)))
    let answer = sender.request(["send-resource", "receiver", file, "../photo"])
    #expect(answer.text(0) == "ok", "\(answer.text(2))")
    let events = receiver.events.wait { $0.contains(where: \.isFinished) }
    let location = try #require(events.compactMap(\.finishedLocation).first)
    #expect(FileManager.default.contents(atPath: location) == Data(bytes))
    // The sender's name is a label: it never leaves the resources folder.
    #expect(location.hasPrefix(receiver.peer.directory.resourcesPath(receiver.identity.id) + "/"))
    #expect(
      !location.dropFirst(receiver.peer.directory.resourcesPath(receiver.identity.id).count + 1).contains("/")
    )
    let progress = events.compactMap { event -> Double? in
      if case .resource(.progressed(let progress)) = event { return progress.fraction }
      return nil
    }
    #expect(progress.count >= 4 && progress == progress.sorted() && progress.last == 1)
    for side in [sender, receiver] {
      let record = side.records.first { $0.contains("\"kind\":\"peer-resource\"") }
      #expect(
        record?.contains("\"delivery\":\"delivered\"") == true && record?.contains("\"bytes\":300000") == true
      )
      #expect(record?.contains("\"transfer\":\"\(PeerDirectory.hex(sender.identity.id))#1\"") == true)
    }
  }
}

extension PeerEvent {
  var isData: Bool { if case .data = self { true } else { false } }
  var dataText: String? {
    if case .data(let bytes, _, _) = self { String(decoding: bytes, as: UTF8.self) } else { nil }
  }
  var droppedCount: Int { if case .unreliableDropped(_, let count) = self { count } else { 0 } }
  var isProgress: Bool { if case .resource(.progressed) = self { true } else { false } }
  var isFinished: Bool { if case .resource(.finished) = self { true } else { false } }
  var finishedLocation: String? {
    if case .resource(.finished(_, let location)) = self { location } else { nil }
  }
}
