import DevicePairing
import DeviceRouting
import DeviceSession

/// A push notification or a deep link for one device of a pair or one running peer, as
/// ``PairOperations/route(_:)`` takes it: checked (``PushNotification``, ``DeepLink``), the
/// device named.
public struct PairRouteRequest: Sendable, Equatable {
  /// Who receives it.
  public enum Target: Sendable, Equatable {
    /// A device of a pair of the pair store under `home`, through its control socket.
    case device(home: String, DeviceAddress)
    /// A running peer, through its control socket.
    case peer(PeerRouteClient)
  }

  public var target: Target
  /// What is delivered.
  public var delivery: RouteDelivery

  public init(target: Target, delivery: RouteDelivery) {
    self.target = target
    self.delivery = delivery
  }

  /// To `device` of the pair store under `home`.
  public init(home: String, device: DeviceAddress, delivery: RouteDelivery) {
    self.init(target: .device(home: home, device), delivery: delivery)
  }

  /// The home whose pair store holds the pair, for a pair's device.
  public var home: String? {
    if case .device(let home, _) = target { return home }
    return nil
  }

  /// The pair's device, for a pair's device.
  public var device: DeviceAddress? {
    if case .device(_, let address) = target { return address }
    return nil
  }

  /// The peer, for a running peer.
  public var peer: PeerRouteClient? {
    if case .peer(let peer) = target { return peer }
    return nil
  }
}
