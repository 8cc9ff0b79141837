import PeerSession

/// Where the local peers of one service type live, `<home>/peers/<service>/`, and the files of
/// one running peer there (`ID` is the identity's id, 16 lowercase hex digits):
///
/// | file | what |
/// |---|---|
/// | `ID.lock` | the run lock (`F_OFD_SETLK`, the pid inside): the peer runs while it is held |
/// | `ID.peer` | who it is: one advertisement frame with its name and id, written at start |
/// | `ID.advert` | its advertisement while it advertises on the local link (one frame, replaced atomically) |
/// | `ID.broker` | the same, for a peer that advertises through a broker (``MQTTPeerLink``): the local link's browsers do not read it |
/// | `ID.sock` | its link socket (0600): the other peers connect here |
/// | `ID.control.sock` | its control socket, for the `peer` verbs and the dashboard |
/// | `ID/` | its traffic journal, and `ID/resources/` for the resources it received |
///
/// A file of a peer whose lock is not held is stale (a peer killed with SIGKILL leaves its
/// files behind): it counts for nothing.
public struct PeerDirectory: Sendable, Hashable {
  /// The folder below the home that holds every service's peers.
  public static let peersDirectoryName = "peers"

  /// The home.
  public let home: String
  /// The service type.
  public let service: ServiceType

  public init(home: String, service: ServiceType) {
    self.home = home
    self.service = service
  }

  /// `<home>/peers`.
  public var peersPath: String { home + "/" + Self.peersDirectoryName }
  /// `<home>/peers/<service>`.
  public var path: String { peersPath + "/" + service.text }

  /// The id as file names carry it: 16 lowercase hex digits.
  public static func hex(_ id: UInt64) -> String {
    let digits = String(id, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// The id a file name starts with (`0123456789abcdef.peer`), or `nil`.
  public static func id(inFileName name: String, suffix: String) -> UInt64? {
    guard name.hasSuffix(suffix), name.utf8.count == 16 + suffix.utf8.count else { return nil }
    let digits = name.utf8.prefix(16)
    guard digits.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
    return UInt64(String(decoding: digits, as: UTF8.self), radix: 16).flatMap { $0 == 0 ? nil : $0 }
  }

  public func lockPath(_ id: UInt64) -> String { path + "/" + Self.hex(id) + ".lock" }
  public func identityPath(_ id: UInt64) -> String { path + "/" + Self.hex(id) + ".peer" }
  public func advertisementPath(_ id: UInt64) -> String { path + "/" + Self.hex(id) + ".advert" }
  /// The advertisement of a peer that runs through a broker: `peer list` and the dashboard read
  /// it as they read ``advertisementPath(_:)``, the local link's browsers never.
  public func brokerAdvertisementPath(_ id: UInt64) -> String { path + "/" + Self.hex(id) + ".broker" }
  public func socketPath(_ id: UInt64) -> String { path + "/" + Self.hex(id) + ".sock" }
  public func controlSocketPath(_ id: UInt64) -> String { path + "/" + Self.hex(id) + ".control.sock" }
  /// The peer's own folder: its traffic journal and received resources.
  public func peerPath(_ id: UInt64) -> String { path + "/" + Self.hex(id) }
  public func resourcesPath(_ id: UInt64) -> String { peerPath(id) + "/resources" }
}
