/// A running simulated peer as the dashboard shows it: a plain value, read by the runtime's
/// peers source (its files under `<home>/peers/<service>/` and its control socket's `status`)
/// and posted as ``DashboardMessage/peers(_:)``. Texts are as read; views show them through
/// `DisplayText`.
public struct PeerSnapshot: Sendable, Equatable {
  /// A pending invitation from another peer, waiting for the operator (`--accept ask`).
  public struct Invitation: Sendable, Equatable {
    /// Who invites, as `NAME#xxxx`.
    public var peer: String
    /// The invitation's context, decoded (`nil`: none came, or the peer does not say).
    public var context: String?

    public init(peer: String, context: String? = nil) {
      self.peer = peer
      self.context = context
    }
  }

  /// A resource in flight, on this peer's side: how far it is.
  public struct Resource: Sendable, Equatable {
    /// Its transfer id as the peer names it (`SENDERHEX/NUMBER`): what `peer cancel` takes.
    public var id: String
    /// The name the sender gave it (raw: escape it to show it).
    public var name: String
    /// Whether this peer sends it (else it receives it).
    public var isSending: Bool
    /// The other side, `NAME#xxxx`.
    public var peer: String
    /// The bytes the receiver holds (as the sender last heard, when sending).
    public var bytes: UInt64
    /// Its size in bytes.
    public var total: UInt64

    public init(id: String, name: String, isSending: Bool, peer: String, bytes: UInt64, total: UInt64) {
      self.id = id
      self.name = name
      self.isSending = isSending
      self.peer = peer
      self.bytes = bytes
      self.total = total
    }

    /// `bytes` of `total`, from 0 to 1 (1 for an empty resource).
    public var fraction: Double { total == 0 ? 1 : min(1, Double(bytes) / Double(total)) }
  }

  /// A peer that went `notConnected` and is not connected again, and why.
  public struct Departure: Sendable, Equatable {
    /// The peer, `NAME#xxxx`.
    public var peer: String
    /// Why (`left the session`, `hung up`, `declined`, …).
    public var reason: String

    public init(peer: String, reason: String) {
      self.peer = peer
      self.reason = reason
    }
  }

  /// The service type, as its directory is named.
  public var service: String
  /// The peer's name.
  public var name: String
  /// Its identity's id (16 hex digits in file names; `NAME#xxxx` shows the last four).
  public var id: UInt64
  /// The pid that holds its run lock.
  public var pid: Int32
  /// Whether it advertises.
  public var isAdvertising: Bool
  /// Its discovery info, by key, sorted (empty while it does not advertise any).
  public var info: [String: String]
  /// The peers it has found, as `NAME#xxxx`.
  public var found: [String]
  /// The peers connected to it, as `NAME#xxxx`.
  public var connected: [String]
  /// Invitations waiting for an answer.
  public var invitations: [Invitation]
  /// Its resources in flight, both directions.
  public var resources: [Resource]
  /// The peers that went away from it (not connected again), with the reason.
  public var departures: [Departure]
  /// Its control socket: where accept and decline go.
  public var controlSocketPath: String
  /// Its folder (`<home>/peers/<service>/ID`), which holds its traffic journal: traffic
  /// entries of this directory are its.
  public var folder: String
  /// Why its status could not be read, if so.
  public var error: String?

  public init(
    service: String, name: String, id: UInt64, pid: Int32 = 0, isAdvertising: Bool = false,
    info: [String: String] = [:], found: [String] = [], connected: [String] = [],
    invitations: [Invitation] = [], resources: [Resource] = [], departures: [Departure] = [],
    controlSocketPath: String = "", folder: String = "", error: String? = nil
  ) {
    self.service = service
    self.name = name
    self.id = id
    self.pid = pid
    self.isAdvertising = isAdvertising
    self.info = info
    self.found = found
    self.connected = connected
    self.invitations = invitations
    self.resources = resources
    self.departures = departures
    self.controlSocketPath = controlSocketPath
    self.folder = folder
    self.error = error
  }

  /// `NAME#xxxx`, as the peer verbs and the journal name it (the id's last four hex digits).
  public var label: String {
    let hex = String(id, radix: 16)
    let padded = String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    return name + "#" + padded.suffix(4)
  }

  /// `connected` (to at least one peer), `invited` (an invitation waits), or `not connected`.
  public var stateText: String {
    if !connected.isEmpty { return "connected" }
    if !invitations.isEmpty { return "invited" }
    return "not connected"
  }
}
