import PeerSession
import Wormhole
import WormholeVocabulary

/// A running peer's traffic records, in the journal of its own folder (`<home>/peers/<service>/ID/`),
/// through the library's journal-only records:
///
/// | what | kind | transiting | identifier | device | peer | delivery |
/// |---|---|---|---|---|---|---|
/// | data sent | `peer-data` | `session-message` | the mode | this peer | the targets, `,`-separated | delivered, or failed with the error |
/// | data received | `peer-data` | `session-message` | the mode | this peer | the sender | delivered |
/// | unreliable drops | `peer-data` | `session-message` | `unreliable` | this peer | the sender | failed, "N unreliable messages dropped" |
/// | a resource, on either side | `peer-resource` | `session-file` | its name | this peer | the other side | delivered, cancelled or failed |
///
/// Peers are written `NAME#xxxx` (the raw name and the id's last four hex digits); a resource's
/// transfer identifier is `<sender id>#<number>`, the same on both sides. Own kinds rather than
/// `pass`: nothing is written to a mailbox, and a reader tells peer traffic from a device's.
///
/// Records are written on a serial queue of their own, in the order they were made, each with
/// the time it was made: they are gathered for ``gatheringMilliseconds`` and written together
/// (one locked write), so that a stream of messages costs no journal write per message on the
/// thread that hands them over. An event's record is made on that queue too: the thread that
/// hands events over (a link thread, between a message and the next) only keeps them.
/// ``flush()`` writes what waits and returns when it is written.
public final class PeerJournal: Sendable {
  /// How long records are gathered before they are written.
  public static let gatheringMilliseconds = 2
  /// Data sent or received between peers.
  public static let dataKind = TrafficKind(rawValue: "peer-data")
  /// A resource sent or received between peers.
  public static let resourceKind = TrafficKind(rawValue: "peer-resource")

  /// The wormhole whose journal holds the records (its directory: the peer's folder).
  public let wormhole: Wormhole
  /// `NAME#xxxx` of this peer, the `device` of every record.
  private let localLabel: String
  /// Records made and not yet written.
  private let waiting = JournalGathering<Pending>(
    label: "local-peer-journal", milliseconds: PeerJournal.gatheringMilliseconds)

  /// What waits to be written: a record, or an event whose record the queue makes.
  private enum Pending: Sendable {
    case entry(Wormhole.JournalEntry)
    case event(PeerEvent)
  }

  /// A journal in `directory` (created) for `local`.
  public init(directory: String, local: PeerIdentity) throws(WormholeError) {
    var options = Wormhole.Options()
    options.sender = "wormhole-tui peer"
    wormhole = try Wormhole(directory: directory, transitingType: .file, options: options)
    localLabel = Self.label(local)
  }

  /// `NAME#xxxx` with the raw name: the journal escapes nothing, readers do.
  public static func label(_ peer: PeerIdentity) -> String {
    let hex = String(peer.id & 0xFFFF, radix: 16)
    return peer.name.text + "#" + String(repeating: "0", count: 4 - hex.count) + hex
  }

  /// Records data sent to `peers` (`error`: why it was refused).
  public func sent(_ bytes: Int, mode: PeerSendMode, to peers: [PeerIdentity], error: String? = nil) {
    write([
      .entry(
        entry(
          Self.dataKind, identifier: mode.rawValue, bytes: bytes, transiting: .sessionMessage,
          peer: peers.map(Self.label).joined(separator: ","), delivery: error == nil ? .delivered : .failed,
          error: error))
    ])
  }

  /// Records what an event of the engine says about traffic (data, drops, resources' ends).
  public func observe(_ event: PeerEvent) { observe([event]) }

  /// Records what `events` say about traffic, in order, in one write to the journal.
  public func observe(_ events: [PeerEvent]) {
    var kept: [Pending] = []
    for event in events where Self.isTraffic(event) { kept.append(.event(event)) }
    write(kept)
  }

  /// Whether `event` makes a record (see ``entry(_:)``).
  private static func isTraffic(_ event: PeerEvent) -> Bool {
    switch event {
    case .data, .unreliableDropped, .resource(.finished), .resource(.cancelled), .resource(.failed): true
    default: false
    }
  }

  private func entry(_ event: PeerEvent) -> Wormhole.JournalEntry? {
    switch event {
    case .data(let bytes, let from, let mode):
      return entry(
        Self.dataKind, identifier: mode.rawValue, bytes: bytes.count, transiting: .sessionMessage,
        peer: Self.label(from), delivery: .delivered)
    case .unreliableDropped(let from, let count):
      return entry(
        Self.dataKind, identifier: PeerSendMode.unreliable.rawValue, bytes: 0, transiting: .sessionMessage,
        peer: Self.label(from), delivery: .failed,
        error: "\(count) unreliable message\(count == 1 ? "" : "s") dropped: the receiver fell behind")
    case .resource(.finished(let progress, _)):
      return resource(progress, delivery: .delivered)
    case .resource(.cancelled(let progress, let byPeer)):
      return resource(
        progress, delivery: .cancelled, error: byPeer ? "cancelled by the other side" : "cancelled")
    case .resource(.failed(let progress, let reason)):
      return resource(progress, delivery: .failed, error: reason)
    default:
      return nil
    }
  }

  private func resource(_ progress: PeerResourceProgress, delivery: TrafficDelivery, error: String? = nil)
    -> Wormhole.JournalEntry
  {
    entry(
      Self.resourceKind, identifier: progress.name, bytes: Int(clamping: progress.bytes),
      transiting: .sessionFile,
      peer: Self.label(progress.peer), delivery: delivery, error: error,
      transfer: PeerDirectory.hex(progress.id.sender) + "#\(progress.id.number)")
  }

  private func entry(
    _ kind: TrafficKind, identifier: String, bytes: Int, transiting: TransitingType, peer: String,
    delivery: TrafficDelivery, error: String? = nil, transfer: String? = nil
  ) -> Wormhole.JournalEntry {
    var details = TrafficDetails()
    details.device = localLabel
    details.peer = peer
    details.delivery = delivery
    details.transfer = transfer
    return Wormhole.JournalEntry(
      kind: kind, identifier: identifier, bytes: bytes, transiting: transiting, details: details, error: error
    )
  }

  /// Writes every record made so far, and returns when they are written.
  public func flush() { waiting.flush(writeWaiting) }

  /// Queues `entries`, stamped with the time now, for the next write.
  private func write(_ entries: [Pending]) {
    waiting.add(entries) { self.writeWaiting($0) }
  }

  /// On the queue: writes the records gathered, in order, in one write.
  private func writeWaiting(_ gathered: [JournalGathering<Pending>.Stamped]) {
    guard !gathered.isEmpty else { return }
    let entries = gathered.compactMap { stamped -> Wormhole.JournalEntry? in
      let made: Wormhole.JournalEntry?
      switch stamped.item {
      case .entry(let entry): made = entry
      case .event(let event): made = entry(event)
      }
      guard var entry = made else { return nil }
      entry.milliseconds = stamped.milliseconds
      return entry
    }
    _ = try? wormhole.record(contentsOf: entries)
  }
}
