/// One unit of traffic between two peers, as a ``PeerLink`` carries it.
///
/// The same frame travels over every link (local Unix sockets, a broker later). Frames with a
/// ``destination`` are relayed through the mesh to that peer; the others are for the peer at
/// the other end of the link. What ``sequence``, ``value``, ``text`` and ``payload`` hold
/// depends on the kind.
public struct PeerFrame: Sendable, Equatable {
  /// What the frame carries.
  public enum Kind: UInt8, Sendable, CaseIterable {
    /// An advertiser's announcement: `text` the service type, `payload` the discovery info.
    case advertisement = 1
    /// An invitation: `sequence` its id, `value` the inviter's session size, `payload` the
    /// archived context.
    case invitation = 2
    /// The answer to invitation `sequence`: `accepted`, or declined (`sessionFull` says why);
    /// `value` the invitee's session size.
    case answer = 3
    /// The inviter gave up on invitation `sequence` (it timed out).
    case withdrawal = 4
    /// The sender's session, itself included: `payload` a list of identities.
    case members = 5
    /// Peers that left the sender's session: `payload` a list of identities.
    case departures = 6
    /// Data for `destination`; `reliable` ones are numbered by `sequence` per sender and receiver.
    case data = 7
    /// A resource begins: `sequence` its id, `value` its size in bytes, `text` its name.
    case resourceStart = 8
    /// Bytes of resource `sequence` at offset `value`.
    case resourceChunk = 9
    /// The receiver holds `value` bytes of resource `sequence` (`completed`: it stored them all).
    case resourceAcknowledgement = 10
    /// Resource `sequence` is cancelled by the side that sends this.
    case resourceCancel = 11
    /// The sender leaves the session (`MCSession.disconnect()`).
    case leave = 12
  }

  /// Flags in a frame.
  public struct Flags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// An answer that accepts the invitation.
    public static let accepted = Flags(rawValue: 1)
    /// Data sent in reliable mode.
    public static let reliable = Flags(rawValue: 2)
    /// A resource acknowledgement: the receiver stored the whole resource.
    public static let completed = Flags(rawValue: 4)
    /// A declining answer: the two sessions together would be too large.
    public static let sessionFull = Flags(rawValue: 8)
  }

  public var kind: Kind
  public var flags: Flags
  /// The peer that made the frame.
  public var source: PeerIdentity
  /// The id of the peer the frame is for, when it is to be relayed; 0 for the link's other end.
  public var destination: UInt64
  public var sequence: UInt64
  public var value: UInt64
  /// A service type or a resource name; empty where the kind has none.
  public var text: String
  public var payload: [UInt8]

  public init(
    kind: Kind, flags: Flags = [], source: PeerIdentity, destination: UInt64 = 0, sequence: UInt64 = 0,
    value: UInt64 = 0, text: String = "", payload: [UInt8] = []
  ) {
    self.kind = kind
    self.flags = flags
    self.source = source
    self.destination = destination
    self.sequence = sequence
    self.value = value
    self.text = text
    self.payload = payload
  }
}
