import PeerSession

/// A peer that runs under the home now: its identity file is there and its run lock is held.
public struct RunningPeer: Sendable, Hashable {
  public var identity: PeerIdentity
  public var directory: PeerDirectory
  /// The pid that holds its run lock (0 before it wrote one).
  public var pid: Int32
  /// Its advertisement file while it advertises (`ID.advert` on the local link, `ID.broker`
  /// through a broker), else `nil`.
  public var advertisementPath: String?
  /// Whether it advertises (its advertisement file is there).
  public var isAdvertising: Bool { advertisementPath != nil }

  /// Its control socket.
  public var controlSocketPath: String { directory.controlSocketPath(identity.id) }

  /// The running peers under `home`, of every service or only `service`, by service and name.
  public static func all(home: String, service: ServiceType? = nil) -> [RunningPeer] {
    let peersPath = home + "/" + PeerDirectory.peersDirectoryName
    var services: [ServiceType] = []
    if let service {
      services = [service]
    } else {
      for name in (try? DeviceFiles.entries(of: peersPath)) ?? [] {
        if let service = try? ServiceType(name) { services.append(service) }
      }
    }
    var found: [RunningPeer] = []
    for service in services.sorted() {
      let directory = PeerDirectory(home: home, service: service)
      for name in (try? DeviceFiles.entries(of: directory.path)) ?? [] {
        guard let id = PeerDirectory.id(inFileName: name, suffix: ".peer"),
          let pid = RunLock.holder(at: directory.lockPath(id)),
          let bytes = try? DeviceFiles.read(
            directory.identityPath(id), limit: LocalPeerLink.advertisementLimit),
          let advertisement = LocalPeerLink.advertisement(bytes, codec: PeerFrameCodec()),
          advertisement.peer.id == id
        else { continue }
        let advertisementPath = [directory.advertisementPath(id), directory.brokerAdvertisementPath(id)]
          .first(where: DeviceFiles.exists)
        found.append(
          RunningPeer(
            identity: advertisement.peer, directory: directory, pid: pid, advertisementPath: advertisementPath
          ))
      }
    }
    return found.sorted { ($0.directory.service, $0.identity) < ($1.directory.service, $1.identity) }
  }
}
