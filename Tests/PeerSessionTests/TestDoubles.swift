import DeviceSession
import PeerSession
import Synchronization

/// A timer the test fires by hand: nothing runs until ``fireAll()``.
final class ManualTimer: SessionTimer {
  private let actions = Mutex<[(Double, @Sendable () -> Void)]>([])

  func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) {
    actions.withLock { $0.append((seconds, action)) }
  }

  /// The delays asked for so far.
  var delays: [Double] { actions.withLock { $0.map(\.0) } }

  /// Runs every scheduled action, as if their time had come.
  func fireAll() {
    let due = actions.withLock { actions in
      defer { actions = [] }
      return actions
    }
    for (_, action) in due { action() }
  }
}

/// Received resources kept in memory.
final class MemoryStorage: PeerResourceStorage {
  struct State {
    var partial: [PeerResourceID: [UInt8]] = [:]
    var finished: [String: [UInt8]] = [:]
    var discarded: [PeerResourceID] = []
  }

  let state = Mutex(State())

  func begin(_ resource: PeerResourceID, name: String, size: UInt64) throws(PeerError) {
    state.withLock { $0.partial[resource] = [] }
  }

  func write(_ resource: PeerResourceID, bytes: [UInt8], at offset: UInt64) throws(PeerError) {
    try state.withLock { state throws(PeerError) in
      guard state.partial[resource]?.count == Int(offset) else { throw .storage("a write out of order") }
      state.partial[resource]?.append(contentsOf: bytes)
    }
  }

  func finish(_ resource: PeerResourceID) throws(PeerError) -> String {
    state.withLock { state in
      let location = "/resources/\(resource)"
      state.finished[location] = state.partial.removeValue(forKey: resource)
      return location
    }
  }

  func discard(_ resource: PeerResourceID) {
    state.withLock { state in
      state.partial[resource] = nil
      state.discarded.append(resource)
    }
  }
}

/// A resource's bytes in memory.
struct BytesSource: PeerResourceSource {
  var bytes: [UInt8]
  var size: UInt64 { UInt64(bytes.count) }

  func read(offset: UInt64, count: Int) throws(PeerError) -> [UInt8] {
    let start = Int(offset)
    return Array(bytes[start..<min(bytes.count, start + count)])
  }
}

/// What a handler was given, in order.
final class EventRecorder: Sendable {
  private let store = Mutex<[PeerEvent]>([])

  var events: [PeerEvent] { store.withLock { $0 } }

  func record(_ event: PeerEvent) { store.withLock { $0.append(event) } }

  func clear() { store.withLock { $0 = [] } }

  /// The state changes recorded for `peer`, in order.
  func states(of peer: PeerIdentity) -> [PeerConnectionState] {
    events.compactMap {
      if case .stateChanged(peer, let state, _) = $0 { return state }
      return nil
    }
  }

  /// The reason of the last `notConnected` recorded for `peer`.
  func reason(for peer: PeerIdentity) -> PeerDisconnectReason? {
    events.compactMap {
      if case .stateChanged(peer, .notConnected, let reason) = $0 { return reason }
      return nil
    }.last
  }

  /// The data received, in order.
  var data: [[UInt8]] {
    events.compactMap {
      if case .data(let bytes, _, _) = $0 { return bytes }
      return nil
    }
  }

  /// The resource events, in order.
  var resources: [PeerResourceEvent] {
    events.compactMap {
      if case .resource(let event) = $0 { return event }
      return nil
    }
  }
}

/// One engine on a scripted network, with its recorder and storage.
struct TestPeer {
  let identity: PeerIdentity
  let engine: PeerEngine
  let events = EventRecorder()
  let storage = MemoryStorage()

  init(
    _ name: String, service: String = "chat", network: ScriptedNetwork, timer: ManualTimer = ManualTimer(),
    receiveQueueLimit: Int = 256, chunkBytes: Int = 64 << 10, windowChunks: Int = 8
  ) throws {
    identity = PeerIdentity(name: try PeerName(name))
    engine = PeerEngine(
      local: identity, service: try ServiceType(service), link: network.link(for: identity), timer: timer,
      storage: storage, receiveQueueLimit: receiveQueueLimit, chunkBytes: chunkBytes,
      windowChunks: windowChunks)
    let events = events
    engine.setEventHandler { events.record($0) }
    try engine.start()
  }
}

/// Connects `invitee` (advertising, accepting always) to `inviter` (browsing), and delivers
/// everything.
func connect(_ inviter: TestPeer, _ invitee: TestPeer, network: ScriptedNetwork) throws {
  try invitee.engine.startAdvertising(policy: .always)
  try inviter.engine.startBrowsing()
  network.run()
  try inviter.engine.invite(invitee.identity, context: [1, 2, 3])
  network.run()
}
