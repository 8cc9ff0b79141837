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
  /// What the running device last knew of its counterpart (``ReachabilityReport``): `nil` when
  /// it is not running, has not activated yet, or the report is an earlier run's.
  public var report: ReachabilityReport? = nil
  /// Whether the running device's process is stopped (SIGSTOP): then its report may be stale.
  public var isStopped = false

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

  /// The status of the device of `role`.
  public func device(_ role: DeviceRole) -> DeviceStatus { role == .phone ? phone : watch }

  /// Whether the two devices reach each other, as far as this machine can tell.
  public enum Reachability: Sendable, Equatable {
    case reachable
    case unreachable
    /// Nothing here can tell: why (no device of the pair runs here, the one that does is stopped).
    case unknown(String)
  }

  /// Whether the two reach each other, as a device of the pair running here knows it (its
  /// link's reachability of its counterpart, wherever that runs: this machine, or another one
  /// through a broker): the newest report of a running device that is not stopped. A running
  /// device not activated (or deactivated) reaches nothing, whatever the other last heard, nor
  /// does one whose counterpart runs here stopped (SIGSTOP). With no device of the pair running here, or only a
  /// stopped one, it is ``Reachability/unknown(_:)``: the counterpart may run elsewhere.
  public var reachability: Reachability {
    let devices = [phone, watch]
    let awake = devices.filter { $0.isRunning && !$0.isStopped }
    // Deactivated, or not yet activated: it has no link, whatever its counterpart last heard.
    if awake.contains(where: { !$0.isActivated }) { return .unreachable }
    // One of the two runs here but is stopped (SIGSTOP): it answers nothing, so the other does not
    // reach it, whatever its link still says (a local connection stays open while it is stopped).
    if !awake.isEmpty, devices.contains(where: { $0.isRunning && $0.isStopped }) { return .unreachable }
    let reports = awake.compactMap(\.report)
    if let newest = reports.max(by: { $0.time < $1.time }) {
      return newest.isReachable ? .reachable : .unreachable
    }
    let running = devices.filter(\.isRunning)
    if let stopped = running.first(where: \.isStopped) {
      return .unknown(
        "the \(stopped.address.role) (pid \(stopped.runningPID ?? 0)) is stopped, so it tells nothing")
    }
    if running.isEmpty { return .unknown("no device of the pair runs here") }
    return .unknown("the running device has not said yet")
  }

  /// Whether each device can reach the other now (``reachability`` is ``Reachability/reachable``).
  public var isReachable: Bool { reachability == .reachable }
}
