import DeviceSession

/// Where one device's files live under the home.
///
/// ```
/// <home>/pairs/<pair>/pair.json                 the pair: {"format":1,"name":"<pair>"}
/// <home>/pairs/<pair>/link.lock                 serializes the two devices' link start-up
/// <home>/pairs/<pair>/<role>/run.lock           locked by the running device; its pid inside
/// <home>/pairs/<pair>/<role>/link.sock          the running device's Unix socket
/// <home>/pairs/<pair>/<role>/application-context  its context and the version the peer stored
/// <home>/pairs/<pair>/<role>/received-context   the counterpart's context as last received
/// <home>/pairs/<pair>/<role>/received-transfers the newest transfer id stored (decimal)
/// <home>/pairs/<pair>/<role>/outbox/next-id     the next transfer id (decimal)
/// <home>/pairs/<pair>/<role>/outbox/log        the outbound queue, append-only (`OutboxLog`)
/// <home>/pairs/<pair>/<role>/outbox/<id>.transfer  one queued transfer (earlier versions' queue)
/// <home>/pairs/<pair>/<role>/AppGroup/<group>/  the device's application-group containers
/// ```
public struct DeviceDirectory: Sendable, Hashable {
  /// The device.
  public let address: DeviceAddress
  /// `<home>/pairs/<pair>`.
  public let pairPath: String

  /// The device `address` under `home`.
  public init(home: String, address: DeviceAddress) {
    self.address = address
    var home = home
    while home.count > 1 && home.hasSuffix("/") { home.removeLast() }
    pairPath = home + "/" + PairStore.pairsDirectoryName + "/" + address.pair.text
  }

  /// `<home>/pairs/<pair>/<role>`: the device's own directory, and the root of its containers.
  public var path: String { pairPath + "/" + address.role.rawValue }
  public var runLockPath: String { path + "/run.lock" }
  public var socketPath: String { path + "/link.sock" }
  public var linkLockPath: String { pairPath + "/link.lock" }
  public var applicationContextPath: String { path + "/application-context" }
  public var receivedContextPath: String { path + "/received-context" }
  public var receivedTransfersPath: String { path + "/received-transfers" }
  public var outboxPath: String { path + "/outbox" }
  public var nextTransferPath: String { outboxPath + "/next-id" }

  /// The file of queued transfer `id`: zero-padded so that names sort as ids do.
  public func transferPath(_ id: UInt64) -> String {
    let digits = String(id)
    return outboxPath + "/" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".transfer"
  }

  /// The counterpart's directory.
  public var counterpart: DeviceDirectory {
    DeviceDirectory(pairPath: pairPath, address: address.counterpart)
  }

  private init(pairPath: String, address: DeviceAddress) {
    self.pairPath = pairPath
    self.address = address
  }
}
