import DeviceSession

/// What `pair list` shows of one device.
public struct DeviceStatus: Sendable, Equatable {
  public var address: DeviceAddress
  /// The pid of the running device process, `0` if it is starting, `nil` when it is not running.
  public var runningPID: Int32?
  /// How many transfers wait in its outbound queue.
  public var queuedTransfers: Int

  public var isRunning: Bool { runningPID != nil }
}

/// What `pair list` shows of one pair.
public struct PairStatus: Sendable, Equatable {
  public var pair: Pair
  public var phone: DeviceStatus
  public var watch: DeviceStatus

  /// Whether each device can reach the other: with the local link, whenever both run (a running
  /// device connects to a running counterpart as it starts).
  public var isReachable: Bool { phone.isRunning && watch.isRunning }
}
