import DeviceSession
import PeerSession

/// Where the peers of one service type meet on an MQTT broker, beside the devices' topics
/// (``DeviceTopics``) under the same prefix. `ID` is a peer identity's id, 16 lowercase hex
/// digits, as ``PeerDirectory`` names its files:
///
/// ```
/// PREFIX/peers/SERVICE/ID/presence    the peer's presence: its advertisement frame while it advertises,
///                                     "online" while it runs without advertising (retained, QoS 1); an
///                                     empty message when it stops (also its Last Will: the retained one
///                                     is removed); the same again, live (QoS 0), every heartbeat
/// PREFIX/peers/SERVICE/ID/inbox/FROM  frames for ID from its neighbour FROM (QoS 1; unreliable data QoS 0)
/// PREFIX/peers/SERVICE/probe          "probe" (QoS 0, live only): a peer that connects asks the others
///                                     for a heartbeat now, so that it hears them at once
/// ```
///
/// Every peer of the service subscribes to `PREFIX/peers/SERVICE/+/presence`, the probe topic
/// and its own `ID/inbox/+`. The service type keeps Bonjour's rule (letters, digits, hyphens),
/// so it never holds `/`, `+` or `#`.
public struct PeerTopics: Sendable, Equatable {
  /// The payload of the presence of a peer that runs but does not advertise.
  public static let online: [UInt8] = Array("online".utf8)
  /// The payload of the probe topic.
  public static let probe: [UInt8] = Array("probe".utf8)

  public let service: ServiceType
  public let prefix: String

  /// The topics of `service` under `prefix` (`wormhole/v1` by default; checked as
  /// ``DeviceTopics`` checks it).
  public init(service: ServiceType, prefix: String = DeviceTopics.defaultPrefix) throws(LinkError) {
    try DeviceTopics.checkPrefix(prefix)
    self.service = service
    self.prefix = prefix
  }

  /// `PREFIX/peers/SERVICE`.
  public var base: String { "\(prefix)/peers/\(service.text)" }

  /// The presence topic of the peer with `id`.
  public func presence(_ id: UInt64) -> String { "\(base)/\(PeerDirectory.hex(id))/presence" }

  /// The topic of frames for `id` from its neighbour `from`.
  public func inbox(of id: UInt64, from: UInt64) -> String {
    "\(base)/\(PeerDirectory.hex(id))/inbox/\(PeerDirectory.hex(from))"
  }

  /// The filter of every peer's presence.
  public var presenceFilter: String { "\(base)/+/presence" }

  /// The filter of `id`'s inbox, every neighbour's.
  public func inboxFilter(of id: UInt64) -> String { "\(base)/\(PeerDirectory.hex(id))/inbox/+" }

  /// The probe topic.
  public var probeTopic: String { "\(base)/probe" }

  /// The client identifier of the peer with `id`: one per run, as the identity is.
  public func clientIdentifier(_ id: UInt64) -> String { "\(base)/\(PeerDirectory.hex(id))" }

  /// What a topic of this service is.
  public enum Place: Sendable, Equatable {
    /// The presence of the peer with this id.
    case presence(UInt64)
    /// A frame for `to` from its neighbour `from`.
    case inbox(to: UInt64, from: UInt64)
    case probe
  }

  /// Which topic `topic` is, or `nil` when it is none of this service's (an id that is not 16
  /// lowercase hex digits, or 0, included).
  public func place(of topic: String) -> Place? {
    let start = base + "/"
    guard topic.utf8.starts(with: start.utf8) else { return nil }
    let levels = topic.utf8.dropFirst(start.utf8.count).split(
      separator: UInt8(ascii: "/"), omittingEmptySubsequences: false
    ).map { String(decoding: $0, as: UTF8.self) }
    switch levels.count {
    case 1 where levels[0] == "probe": return .probe
    case 2 where levels[1] == "presence":
      return Self.id(levels[0]).map { .presence($0) }
    case 3 where levels[1] == "inbox":
      guard let to = Self.id(levels[0]), let from = Self.id(levels[2]) else { return nil }
      return .inbox(to: to, from: from)
    default: return nil
    }
  }

  /// The id a topic level holds (16 lowercase hex digits, not 0), or `nil`.
  static func id(_ level: String) -> UInt64? { PeerDirectory.id(inFileName: level, suffix: "") }
}
