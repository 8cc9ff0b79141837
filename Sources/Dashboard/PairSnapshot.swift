/// A pair of simulated devices as the dashboard shows it: a plain value, read from the pair
/// store by the runtime's pairs source and posted as ``DashboardMessage/pairs(_:)``. Texts
/// here are as read from disk; views show them through `DisplayText`.
public struct PairSnapshot: Sendable, Equatable {
  /// The two roles of a pair.
  public enum Role: String, Sendable, Hashable, CaseIterable {
    case phone, watch
  }

  /// One entry of an application context: its identifier and the size of its archive.
  public struct ContextEntry: Sendable, Equatable {
    public var identifier: String
    public var size: Int

    public init(identifier: String, size: Int) {
      self.identifier = identifier
      self.size = size
    }
  }

  /// A transfer waiting in a device's outbound queue.
  public struct QueuedTransfer: Sendable, Equatable {
    public var id: UInt64
    public var identifier: String
    public var size: Int
    /// When it was queued, in milliseconds since 1970.
    public var time: Int64

    public init(id: UInt64, identifier: String, size: Int, time: Int64) {
      self.id = id
      self.identifier = identifier
      self.size = size
      self.time = time
    }
  }

  /// Why what carries a running device's link refused the device itself: another run of its
  /// role took its place on the broker, or the broker refused a publication of it (its ACL).
  public struct Denial: Sendable, Equatable {
    /// Taken over (the link no longer connects), rather than refused (it runs on).
    public var isTakenOver: Bool
    /// In the words of what carries the link (raw text: shown through `DisplayText`).
    public var reason: String

    public init(isTakenOver: Bool, reason: String) {
      self.isTakenOver = isTakenOver
      self.reason = reason
    }

    /// `taken over` or `refused`.
    public var label: String { isTakenOver ? "taken over" : "refused" }
  }

  /// One device of the pair.
  public struct Device: Sendable, Equatable {
    public var role: Role
    /// The pid of the running device process (`0` while it starts), `nil` when it is not running.
    public var runningPID: Int32?
    /// Whether its session is activated (`WCSessionActivationState.activated`); never while it
    /// is not running.
    public var isActivated: Bool
    /// The application context it sent, by identifier.
    public var applicationContext: [ContextEntry]
    /// The application context it last received, by identifier.
    public var receivedContext: [ContextEntry]
    /// Its outbound queue, oldest first.
    public var queuedTransfers: [QueuedTransfer]
    /// Why part of its files could not be read, if so.
    public var error: String?
    /// Its link's denial, as the running device last reported it (``Denial``), if any.
    public var denial: Denial?

    /// A device; `isActivated` defaults to whether it runs (a device that runs has activated,
    /// unless told otherwise).
    public init(
      role: Role, runningPID: Int32? = nil, isActivated: Bool? = nil, applicationContext: [ContextEntry] = [],
      receivedContext: [ContextEntry] = [], queuedTransfers: [QueuedTransfer] = [], error: String? = nil,
      denial: Denial? = nil
    ) {
      self.role = role
      self.runningPID = runningPID
      self.isActivated = runningPID != nil && (isActivated ?? true)
      self.applicationContext = applicationContext
      self.receivedContext = receivedContext
      self.queuedTransfers = queuedTransfers
      self.error = error
      self.denial = denial
    }

    public var isRunning: Bool { runningPID != nil }

    /// `activated`, `not activated` (running, its session not yet activated) or `not running`.
    public var activationText: String {
      isRunning ? (isActivated ? "activated" : "not activated") : "not running"
    }
  }

  /// The pair's name.
  public var name: String
  /// The home whose pair store holds it (what a cancel of a transfer goes to).
  public var home: String
  public var phone: Device
  public var watch: Device
  /// Whether the two reach each other, as a device of the pair running on this machine knows it.
  public var reachability: Reachability

  /// Whether the two devices reach each other, as far as this machine can tell.
  public enum Reachability: Sendable, Equatable {
    case reachable
    case unreachable
    /// Nothing here can tell, and why (no device of the pair runs here, or the one that does is
    /// stopped): the counterpart may run on another machine.
    case unknown(String)
  }

  /// A pair; `reachability` defaults to what the local link gives: reachable whenever both are
  /// activated.
  public init(
    name: String, home: String = "", phone: Device, watch: Device, reachability: Reachability? = nil
  ) {
    self.name = name
    self.home = home
    self.phone = phone
    self.watch = watch
    self.reachability =
      reachability ?? (phone.isActivated && watch.isActivated ? .reachable : .unreachable)
  }

  /// Whether each device can reach the other now.
  public var isReachable: Bool { reachability == .reachable }

  /// `reachable`, `unreachable` or `reachability ?` (nothing here can tell; the contents pane says why).
  public var reachabilityText: String {
    switch reachability {
    case .reachable: return "reachable"
    case .unreachable: return "unreachable"
    case .unknown: return "reachability ?"
    }
  }

  /// The device of `role`.
  public func device(_ role: Role) -> Device { role == .phone ? phone : watch }

  /// The directory that holds the application-group containers of the device of `role`, with
  /// a trailing `/`: `<home>/pairs/<name>/<role>/AppGroup/` (the home without its trailing
  /// slashes, as the watcher names directories). Traffic entries of directories under it are
  /// the device's.
  public func containersPrefix(of role: Role) -> String {
    var home = home
    while home.count > 1 && home.hasSuffix("/") { home.removeLast() }
    return home + "/pairs/" + name + "/" + role.rawValue + "/AppGroup/"
  }

  /// Transfers queued on both devices.
  public var queuedCount: Int { phone.queuedTransfers.count + watch.queuedTransfers.count }
}
