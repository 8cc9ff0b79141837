/// Whether a machine's bridge applies pass, clear and replay sent from a dashboard, as its
/// retained `BridgeInfo` (`wormhole/v1/machines/M/bridge`, `{"version":1,"remote_writes":bool,
/// "reason":…}`) says. A bridge that published none accepts none.
public struct RemoteWritePolicy: Sendable, Hashable {
  /// Whether the bridge accepts remote writes.
  public var isAllowed: Bool
  /// Why it does not, as the bridge said it (hostile text: show it through `DisplayText`).
  public var reason: String?

  public init(isAllowed: Bool, reason: String?) {
    self.isAllowed = isAllowed
    self.reason = reason
  }
}
