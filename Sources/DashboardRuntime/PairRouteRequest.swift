import DeviceRouting
import DeviceSession

/// A push notification or a deep link for one device of a pair, as
/// ``PairOperations/route(_:)`` takes it: checked (``PushNotification``, ``DeepLink``), the
/// device named.
public struct PairRouteRequest: Sendable, Equatable {
  /// What is delivered.
  public enum Delivery: Sendable, Equatable {
    case push(PushNotification)
    case deepLink(DeepLink)
  }

  /// The home whose pair store holds the pair.
  public var home: String
  /// The device that receives it.
  public var device: DeviceAddress
  public var delivery: Delivery
}
