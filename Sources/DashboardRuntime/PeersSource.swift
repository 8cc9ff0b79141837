import Dashboard
import DevicePairing
import Dispatch
import Foundation
import Glibc
import KeyedArchive
import PeerSession
import Synchronization
import WormholeVocabulary

/// The running simulated peers under a home (`<home>/peers/<service>/`), posted as
/// ``DashboardMessage/peers(_:)``: at start, then whenever what they show changed.
///
/// It polls on a queue of its own every ``interval``: the running peers (their run locks and
/// identity files, ``RunningPeer/all(home:service:)``), each one's advertisement for its
/// discovery info, and each one's control socket's `status` (found and connected peers,
/// pending invitations), with a short timeout, so a peer that hangs never holds the others.
/// Nothing is posted while nothing changed. A peer's end is also an event: each running peer's
/// process is watched through a pidfd (``DeviceExitWatch`` on its run lock), and the peers are
/// read again the moment one ends, so a killed peer goes from the branch at once.
public final class PeersSource: DashboardMessageSource {
  /// How often the peers are read.
  public static let interval: DispatchTimeInterval = .milliseconds(500)
  /// How long one peer's `status` may take.
  static let statusSeconds = 0.5

  private let home: String
  private let pollInterval: DispatchTimeInterval
  private let queue = DispatchQueue(label: "wormhole.dashboard.peers")
  private let state = Mutex(PollingSourceState<[PeerSnapshot]>())

  /// Runs on the source's queue after each read, before its processes are watched: lets a test
  /// end a peer exactly there.
  let afterRead = Mutex(Hook())

  struct Hook { var run: (@Sendable () -> Void)? }

  /// The peer processes watched, so that one that ends brings a read at once.
  private let exits: ProcessExitWatches

  /// The peers under `home`, read every `interval` (and when a peer ends); nothing is read
  /// until ``start(posting:)``.
  public init(home: String, interval: DispatchTimeInterval = PeersSource.interval) {
    self.home = home
    pollInterval = interval
    exits = ProcessExitWatches(queue: queue)
  }

  public func start(posting post: @escaping @Sendable (DashboardMessage) -> Void) {
    guard state.startPosting(post) else { return }
    queue.async { [weak self] in self?.poll(generation: 0) }
  }

  public func cancel() {
    state.withLock { $0.post = nil }
    // A poll under way finishes before this returns; none starts after.
    queue.sync { exits.cancel() }
  }

  private func poll(generation: UInt64) {
    guard state.mayPoll(generation) else { return }
    let peers = Self.snapshots(home: home)
    afterRead.withLock { $0.run }?()
    state.posting(ifChanged: peers)?(.peers(peers))
    watchExits(of: peers)
    queue.asyncAfter(deadline: .now() + pollInterval) { [weak self] in self?.poll(generation: generation) }
  }

  /// Reads the peers now, from the source's queue: a watched peer ended.
  private func pollNow() {
    poll(generation: state.startChain())
  }

  /// Watches the process of every running peer (by a pidfd, readable when it ends) and stops
  /// watching those that no longer run. On the source's queue.
  private func watchExits(of peers: [PeerSnapshot]) {
    var running: [String: Int32] = [:]
    for peer in peers where peer.pid > 0 {
      guard let service = try? ServiceType(peer.service) else { continue }
      running[PeerDirectory(home: home, service: service).lockPath(peer.id)] = peer.pid
    }
    exits.watch(running: running) { [weak self] in self?.pollNow() }
  }

  /// Every running peer under `home` as the dashboard shows it, by service and name.
  public static func snapshots(home: String) -> [PeerSnapshot] {
    RunningPeer.all(home: home).map { peer in
      var snapshot = PeerSnapshot(
        service: peer.directory.service.text, name: peer.identity.name.text, id: peer.identity.id,
        pid: peer.pid, isAdvertising: peer.isAdvertising,
        info: peer.advertisementPath.map { info(at: $0) } ?? [:],
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

  /// Reads a `status` answer (`peer P`, then `found P`, `connected P`, `invited-by P`,
  /// `resource …` and `left P` lines). An `invited-by` line carries the invitation's archived
  /// context after a tab, in hex (`invited-by P\tHEX`): it is decoded and shown summarized.
  /// A `resource` line is `ID\tsending|receiving\tBYTES\tTOTAL\tPEER\tNAMEHEX`; a `left`
  /// line `P\tREASON`. Lines that do not read are skipped.
  public static func apply(status: String, to snapshot: inout PeerSnapshot) {
    for line in status.split(separator: "\n") {
      guard let space = line.firstIndex(of: " ") else { continue }
      let word = line[..<space]
      let rest = line[line.index(after: space)...]
      if word == "resource" {
        if let resource = resource(rest) { snapshot.resources.append(resource) }
        continue
      }
      if word == "left" {
        // The reason never holds a tab; the peer's name may.
        guard let tab = rest.lastIndex(of: "\t") else { continue }
        snapshot.departures.append(
          PeerSnapshot.Departure(
            peer: String(rest[..<tab]), reason: String(rest[rest.index(after: tab)...])))
        continue
      }
      let fields = rest.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
      let peer = String(fields[0])
      switch word {
      case "found": snapshot.found.append(peer)
      case "connected": snapshot.connected.append(peer)
      case "invited-by":
        let context = fields.count > 1 ? contextSummary(hex: fields[1]) : nil
        snapshot.invitations.append(PeerSnapshot.Invitation(peer: peer, context: context))
      default: continue
      }
    }
  }

  /// A `resource` line's fields (after the word), or `nil` when they do not read. The peer's
  /// name may hold tabs: it is what lies between the fourth field and the last.
  static func resource(_ text: Substring) -> PeerSnapshot.Resource? {
    let fields = text.split(separator: "\t", omittingEmptySubsequences: false)
    guard fields.count >= 6, fields[1] == "sending" || fields[1] == "receiving",
      let bytes = UInt64(fields[2]), let total = UInt64(fields[3]),
      let name = JSONText.bytes(hex: fields[fields.count - 1])
    else { return nil }
    return PeerSnapshot.Resource(
      id: String(fields[0]), name: String(decoding: name, as: UTF8.self), isSending: fields[1] == "sending",
      peer: fields[4..<(fields.count - 1)].joined(separator: "\t"), bytes: bytes, total: total)
  }

  /// The archived context in `hex`, decoded and summarized: `(no context)` when empty,
  /// `(unreadable context)` when it is not an archive.
  static func contextSummary(hex: Substring) -> String {
    guard let bytes = JSONText.bytes(hex: hex) else { return "(unreadable context)" }
    if bytes.isEmpty { return "(no context)" }
    guard let decoded = try? KeyedArchiveInspector().inspect(Data(bytes)) else {
      return "(unreadable context)"
    }
    return decoded.root.summary(width: 512)
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
