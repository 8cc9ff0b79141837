import DeviceSession

/// Operations on one device of a pair from outside the process that runs it: what `pass`,
/// `clear` and `transfers cancel` do with the session types, for any program (the dashboard's
/// runtime among them).
///
/// Each operation goes one of two ways, and says which in its result (``Route``):
/// - When another process runs the device (`device run` holds its run lock), the request goes
///   to that device's control socket (``DeviceControlServer``) and its own session carries it
///   out, exactly as it would for the device's program.
/// - Otherwise the client becomes the device for the duration of the operation: it takes the
///   run lock, activates the session (connecting to a running counterpart), performs the
///   operation, waits for what the type needs (a reply, the counterpart storing a context or a
///   transfer, up to ``acknowledgementSeconds``), and stops. A transfer is cancelled on the
///   stopped device's files, under its run lock, without activating (which would send it).
///
/// Results are values; nothing is printed. Calls block until the operation is done.
///
/// ```swift
/// let client = PairedDeviceClient(store: PairStore(home: home), address: pair.phone, applicationGroup: "default")
/// let reply = try client.sendMessage(identifier: "greet", archive: archive, replyTimeout: 2)
/// let sent = try client.transferFile(identifier: "doc", archive: archive)   // sent.id, sent.isStored
/// try client.cancelTransfer(id: sent.id)
/// ```
public struct PairedDeviceClient: Sendable {
  /// How an operation reached the device.
  public enum Route: Sendable, Equatable {
    /// Through the control socket of the process that runs the device (its pid, when known).
    case runningDevice(pid: Int32?)
    /// The device was not running: the client took its run lock and acted as the device.
    case stoppedDevice
  }

  /// What ``updateContext(identifier:archive:deliveringIdentical:)`` and the removals did.
  public struct ContextOutcome: Sendable, Equatable {
    /// Sent to the reachable counterpart, queued until it is reachable, or unchanged (an
    /// identical context, or nothing to remove): neither sent nor delivered.
    public var update: SessionEngine.ContextUpdate
    /// Whether the counterpart acknowledged storing this version before the call returned.
    public var isStored: Bool
    public var route: Route
  }

  /// What ``transferFile(identifier:archive:)`` did.
  public struct TransferOutcome: Sendable, Equatable {
    /// The transfer's id (for `transfers`, ``cancelTransfer(id:)``).
    public var id: UInt64
    /// Whether the counterpart was reachable when the transfer was queued (so it was sent).
    public var wasReachable: Bool
    /// Whether the counterpart stored it before the call returned; otherwise it stays queued
    /// and is delivered when both devices run.
    public var isStored: Bool
    public var route: Route
  }

  public let store: PairStore
  /// The device the operations act as (the sending side).
  public let address: DeviceAddress
  /// The application group whose mailboxes the device uses, when it becomes the device.
  public let applicationGroup: String
  /// MMWormhole's optional directory within the group, when it becomes the device.
  public let optionalDirectory: String?
  /// How long a reachable counterpart has to store a context or a transfer before the call
  /// returns anyway (it stays queued, and is sent again when both run).
  public var acknowledgementSeconds = 10.0
  /// How long to wait for the link to a running counterpart to come up, when becoming the device.
  public var connectionSeconds = 5.0

  public init(
    store: PairStore, address: DeviceAddress, applicationGroup: String, optionalDirectory: String? = nil
  ) {
    self.store = store
    self.address = address
    self.applicationGroup = applicationGroup
    self.optionalDirectory = optionalDirectory
  }

  // MARK: Operations

  /// Sends a live session message. With a `replyTimeout`, waits for the reply and returns its
  /// archive; without, returns `nil` once sent.
  ///
  /// Throws ``PairedDeviceError/session(_:)`` with `notReachable` (7007) when the counterpart
  /// does not run, `replyTimedOut` (7012) when no reply comes in time, `notActivated` (7004).
  @discardableResult
  public func sendMessage(identifier: String, archive: [UInt8], replyTimeout: Double? = nil)
    throws(PairedDeviceError) -> [UInt8]?
  {
    let request = ControlRequest.message(identifier: identifier, archive: archive, replyTimeout: replyTimeout)
    switch try perform(request, waiting: (replyTimeout ?? 0) + 30) {
    case .message(let reply): return reply
    case let answer: throw unexpected(answer)
    }
  }

  /// Merges `archive` for `identifier` into the device's application context (latest wins)
  /// and delivers it to the counterpart now or when both run. An identical context is
  /// `unchanged` (MMWormhole #85) unless `deliveringIdentical`.
  @discardableResult
  public func updateContext(identifier: String, archive: [UInt8], deliveringIdentical: Bool = false)
    throws(PairedDeviceError) -> ContextOutcome
  {
    try context(.context(identifier: identifier, archive: archive, deliveringIdentical: deliveringIdentical))
  }

  /// Removes identifiers from the device's application context; the result is delivered as a
  /// context update (latest wins). `unchanged` when none of them was in it.
  @discardableResult
  public func removeFromContext(identifiers: [String]) throws(PairedDeviceError) -> ContextOutcome {
    try context(.removal(identifiers: identifiers))
  }

  /// Removes one identifier from the device's application context.
  @discardableResult
  public func removeFromContext(identifier: String) throws(PairedDeviceError) -> ContextOutcome {
    try removeFromContext(identifiers: [identifier])
  }

  /// Empties the device's application context; delivered as a context update.
  @discardableResult
  public func clearContext() throws(PairedDeviceError) -> ContextOutcome {
    try context(.removal(identifiers: nil))
  }

  /// Queues a file transfer (stored on the device before this returns) and waits, while the
  /// counterpart is reachable, for it to be stored there.
  @discardableResult
  public func transferFile(identifier: String, archive: [UInt8]) throws(PairedDeviceError) -> TransferOutcome
  {
    let request = ControlRequest.transfer(identifier: identifier, archive: archive)
    switch try perform(request, waiting: acknowledgementSeconds + 30) {
    case .transfer(let id, let reachable, let stored, let route):
      return TransferOutcome(id: id, wasReachable: reachable, isStored: stored, route: route)
    case let answer: throw unexpected(answer)
    }
  }

  /// Cancels a queued transfer that was not sent yet: it is never delivered. Throws
  /// `transferNotFound` or `transferAlreadySent` (in ``PairedDeviceError/session(_:)``). While
  /// the device is down, the cancel is journaled in its application group's journal as the
  /// running device would journal it.
  @discardableResult
  public func cancelTransfer(id: UInt64) throws(PairedDeviceError) -> Route {
    do {
      let queued = try? store.transfers(of: address).first { $0.id == id }
      try store.cancelTransfer(id, of: address)
      if let queued,
        let mailboxes = try? MailboxDelivery(
          device: store.directory(for: address), applicationGroup: applicationGroup,
          optionalDirectory: optionalDirectory)
      {
        SessionJournal.journalCancel(of: queued, by: address, in: mailboxes)
      }
      return .stoppedDevice
    } catch {
      guard case .deviceRunning(_, let pid) = error else { throw PairedDeviceError(error) }
      switch try remote(.cancel(id: id), pid: pid, waiting: 30) {
      case .cancelled: return .runningDevice(pid: pid)
      case let answer: throw unexpected(answer)
      }
    }
  }

  // MARK: Routes

  /// An answer with the route it took.
  enum Result {
    case message([UInt8]?)
    case context(SessionEngine.ContextUpdate, stored: Bool, route: Route)
    case transfer(id: UInt64, reachable: Bool, stored: Bool, route: Route)
    case cancelled
  }

  private func context(_ request: ControlRequest) throws(PairedDeviceError) -> ContextOutcome {
    switch try perform(request, waiting: acknowledgementSeconds + 30) {
    case .context(let update, let stored, let route):
      return ContextOutcome(update: update, isStored: stored, route: route)
    case let answer: throw unexpected(answer)
    }
  }

  /// Performs `request` through the running device, or as the device.
  private func perform(_ request: ControlRequest, waiting seconds: Double) throws(PairedDeviceError) -> Result
  {
    let device: SimulatedDevice
    do {
      device = try SimulatedDevice(
        store: store, address: address, applicationGroup: applicationGroup,
        optionalDirectory: optionalDirectory)
    } catch {
      guard case .alreadyRunning(_, let pid) = error else { throw PairedDeviceError(error) }
      return try remote(request, pid: pid, waiting: seconds)
    }
    defer { device.stop() }
    let events = DeliveryLog()
    device.session.setDeliveryHandler { events.append($0) }
    do throws(SessionError) {
      try device.session.activate()
    } catch {
      throw .session(error)
    }
    // A running counterpart is connected to as the link starts; its reachability comes from the
    // link's thread, so wait for it rather than failing a message that would have gone.
    if RunLock.holder(at: store.directory(for: address.counterpart).runLockPath) != nil {
      _ = events.wait(seconds: connectionSeconds) { _ in device.session.isReachable }
    }
    let operations = SessionOperations(
      session: device.session, events: events, acknowledgementSeconds: acknowledgementSeconds)
    let answer: ControlAnswer
    do throws(SessionError) { answer = try operations.perform(request) } catch { throw .session(error) }
    return try result(answer, route: .stoppedDevice)
  }

  private func remote(_ request: ControlRequest, pid: Int32?, waiting seconds: Double)
    throws(PairedDeviceError)
    -> Result
  {
    let directory = store.directory(for: address)
    try Self.refuseIfStopped(address, pid: pid)
    guard
      let answer = try DeviceControlChannel.send(
        request.frame(sender: address.role), to: directory, waiting: seconds)
    else { throw .notAnswering(address, pid: pid) }
    return try result(answer, route: .runningDevice(pid: pid))
  }

  /// Fails at once when the running device's process is stopped (SIGSTOP): its control socket
  /// still accepts, but nothing would answer before the wait ran out.
  static func refuseIfStopped(_ address: DeviceAddress, pid: Int32?) throws(PairedDeviceError) {
    guard let pid, RunLock.isStopped(pid: pid) else { return }
    throw .controlChannel(
      address,
      reason: "the running device (pid \(pid)) is stopped: it answers nothing until it is continued "
        + "(kill -CONT \(pid))")
  }

  private func result(_ answer: ControlAnswer, route: Route) throws(PairedDeviceError) -> Result {
    switch answer {
    case .message(let reply): return .message(reply)
    case .context(let update, let stored): return .context(update, stored: stored, route: route)
    case .transfer(let id, let reachable, let stored):
      return .transfer(id: id, reachable: reachable, stored: stored, route: route)
    case .cancelled: return .cancelled
    case .failed(let error): throw .session(error)
    }
  }

  private func unexpected(_ result: Result) -> PairedDeviceError {
    .controlChannel(address, reason: "the running device answered another request than the one sent")
  }
}
