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
public final class PeerJournal: Sendable {
  /// Data sent or received between peers.
  public static let dataKind = TrafficKind(rawValue: "peer-data")
  /// A resource sent or received between peers.
  public static let resourceKind = TrafficKind(rawValue: "peer-resource")

  /// The wormhole whose journal holds the records (its directory: the peer's folder).
  public let wormhole: Wormhole
  private let local: PeerIdentity

  /// A journal in `directory` (created) for `local`.
  public init(directory: String, local: PeerIdentity) throws(WormholeError) {
    var options = Wormhole.Options()
    options.sender = "wormhole-tui peer"
    wormhole = try Wormhole(directory: directory, transitingType: .file, options: options)
    self.local = local
  }

  /// `NAME#xxxx` with the raw name: the journal escapes nothing, readers do.
  public static func label(_ peer: PeerIdentity) -> String {
    let hex = String(peer.id & 0xFFFF, radix: 16)
    return peer.name.text + "#" + String(repeating: "0", count: 4 - hex.count) + hex
  }

  /// Records data sent to `peers` (`error`: why it was refused).
  public func sent(_ bytes: Int, mode: PeerSendMode, to peers: [PeerIdentity], error: String? = nil) {
    record(
      Self.dataKind, identifier: mode.rawValue, bytes: bytes, transiting: .sessionMessage,
      peer: peers.map(Self.label).joined(separator: ","), delivery: error == nil ? .delivered : .failed,
      error: error)
  }

  /// Records what an event of the engine says about traffic (data, drops, resources' ends).
  public func observe(_ event: PeerEvent) {
    switch event {
    case .data(let bytes, let from, let mode):
      record(
        Self.dataKind, identifier: mode.rawValue, bytes: bytes.count, transiting: .sessionMessage,
        peer: Self.label(from), delivery: .delivered)
    case .unreliableDropped(let from, let count):
      record(
        Self.dataKind, identifier: PeerSendMode.unreliable.rawValue, bytes: 0, transiting: .sessionMessage,
        peer: Self.label(from), delivery: .failed,
        error: "\(count) unreliable message\(count == 1 ? "" : "s") dropped: the receiver fell behind")
    case .resource(.finished(let progress, _)):
      resource(progress, delivery: .delivered)
    case .resource(.cancelled(let progress, let byPeer)):
      resource(progress, delivery: .cancelled, error: byPeer ? "cancelled by the other side" : "cancelled")
    case .resource(.failed(let progress, let reason)):
      resource(progress, delivery: .failed, error: reason)
    default:
      break
    }
  }

  private func resource(_ progress: PeerResourceProgress, delivery: TrafficDelivery, error: String? = nil) {
    record(
      Self.resourceKind, identifier: progress.name, bytes: Int(clamping: progress.bytes),
      transiting: .sessionFile,
      peer: Self.label(progress.peer), delivery: delivery, error: error,
      transfer: PeerDirectory.hex(progress.id.sender) + "#\(progress.id.number)")
  }

  private func record(
    _ kind: TrafficKind, identifier: String, bytes: Int, transiting: TransitingType, peer: String,
    delivery: TrafficDelivery, error: String? = nil, transfer: String? = nil
  ) {
    var details = TrafficDetails()
    details.device = Self.label(local)
    details.peer = peer
    details.delivery = delivery
    details.transfer = transfer
    _ = try? wormhole.record(
      kind: kind, identifier: identifier, bytes: bytes, transiting: transiting, details: details, error: error
    )
  }
}
