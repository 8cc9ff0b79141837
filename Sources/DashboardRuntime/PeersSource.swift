import Dashboard
import DevicePairing
import Dispatch
import Glibc
import PeerSession
import Synchronization

/// The running simulated peers under a home (`<home>/peers/<service>/`), posted as
/// ``DashboardMessage/peers(_:)``: at start, then whenever what they show changed.
///
/// It polls on a queue of its own every ``interval``: the running peers (their run locks and
/// identity files, ``RunningPeer/all(home:service:)``), each one's advertisement for its
/// discovery info, and each one's control socket's `status` (found and connected peers,
/// pending invitations), with a short timeout, so a peer that hangs never holds the others.
/// Nothing is posted while nothing changed.
public final class PeersSource: DashboardMessageSource {
  /// How often the peers are read.
  public static let interval: DispatchTimeInterval = .milliseconds(500)
  /// How long one peer's `status` may take.
  static let statusSeconds = 0.5

  private let home: String
  private let queue = DispatchQueue(label: "wormhole.dashboard.peers")
  private let state = Mutex<State>(State())

  private struct State {
    var post: (@Sendable (DashboardMessage) -> Void)?
    var started = false
    var last: [PeerSnapshot]?
  }

  /// The peers under `home`; nothing is read until ``start(posting:)``.
  public init(home: String) { self.home = home }

  public func start(posting post: @escaping @Sendable (DashboardMessage) -> Void) {
    let first = state.withLock { state -> Bool in
      state.post = post
      defer { state.started = true }
      return !state.started
    }
    guard first else { return }
    queue.async { [weak self] in self?.poll() }
  }

  public func cancel() {
    state.withLock { $0.post = nil }
    // A poll under way finishes before this returns; none starts after.
    queue.sync {}
  }

  private func poll() {
    guard state.withLock({ $0.post != nil }) else { return }
    let peers = Self.snapshots(home: home)
    let post = state.withLock { state -> (@Sendable (DashboardMessage) -> Void)? in
      guard let post = state.post, state.last != peers else { return nil }
      state.last = peers
      return post
    }
    post?(.peers(peers))
    queue.asyncAfter(deadline: .now() + Self.interval) { [weak self] in self?.poll() }
  }

  /// Every running peer under `home` as the dashboard shows it, by service and name.
  public static func snapshots(home: String) -> [PeerSnapshot] {
    RunningPeer.all(home: home).map { peer in
      var snapshot = PeerSnapshot(
        service: peer.directory.service.text, name: peer.identity.name.text, id: peer.identity.id,
        pid: peer.pid, isAdvertising: peer.isAdvertising,
        info: peer.isAdvertising ? info(at: peer.directory.advertisementPath(peer.identity.id)) : [:],
        controlSocketPath: peer.controlSocketPath, folder: peer.directory.peerPath(peer.identity.id))
      let request = PeerControlMessage(text: ["status"])
      guard
        let answer = PeerControlChannel.exchange(
          request, path: peer.controlSocketPath, seconds: statusSeconds)
      else {
        snapshot.error = "its control socket did not answer"
        return snapshot
      }
      guard answer.text(0) == "ok" else {
        snapshot.error = "status failed: " + answer.text(2)
        return snapshot
      }
      apply(status: answer.text(1), to: &snapshot)
      return snapshot
    }
  }

  /// Reads a `status` answer (`peer P`, then `found P`, `connected P`, `invited-by P` lines).
  static func apply(status: String, to snapshot: inout PeerSnapshot) {
    for line in status.split(separator: "\n") {
      guard let space = line.firstIndex(of: " ") else { continue }
      let word = line[..<space]
      let peer = String(line[line.index(after: space)...])
      switch word {
      case "found": snapshot.found.append(peer)
      case "connected": snapshot.connected.append(peer)
      case "invited-by": snapshot.invitations.append(PeerSnapshot.Invitation(peer: peer))
      default: continue
      }
    }
  }

  /// The discovery info of the advertisement at `path`; none when it cannot be read.
  static func info(at path: String) -> [String: String] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard descriptor >= 0 else { return [:] }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while bytes.count <= 64 << 10 {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      bytes.append(contentsOf: chunk[0..<count])
    }
    var reader = PeerFrameReader(codec: PeerFrameCodec())
    reader.append(bytes)
    guard let frame = try? reader.next(), let advertisement = try? PeerAdvertisement(frame: frame) else {
      return [:]
    }
    return advertisement.info.entries
  }
}
