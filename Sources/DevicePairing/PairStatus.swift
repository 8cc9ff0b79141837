import DeviceSession

/// What `pair list` shows of one device.
public struct DeviceStatus: Sendable, Equatable {
  public var address: DeviceAddress
  /// The pid of the running device process, `0` if it is starting, `nil` when it is not running.
  public var runningPID: Int32?
  /// How many transfers wait in its outbound queue.
  public var queuedTransfers: Int
  /// Whether its session is activated (`WCSessionActivationState.activated`): it runs and its
  /// link listens, which the link starts doing on activation. See ``PairStore/status(of:)``.
  public var isActivated = false

  public var isRunning: Bool { runningPID != nil }

  /// The session's activation state as WatchConnectivity names it; a device that is not
  /// running is `notActivated`.
  public var activationState: ActivationState { isActivated ? .activated : .notActivated }
}

/// What `pair list` shows of one pair.
public struct PairStatus: Sendable, Equatable {
  public var pair: Pair
  public var phone: DeviceStatus
  public var watch: DeviceStatus

  /// Whether each device can reach the other: with the local link, whenever both are activated
  /// (an activated device connects to an activated counterpart as its link starts).
  public var isReachable: Bool { phone.isActivated && watch.isActivated }
}
