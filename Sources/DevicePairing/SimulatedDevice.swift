import DeviceSession

/// A running simulated device: its run lock held, its session over the local link and its
/// directory. What `device run` keeps alive; stopping it (or the process ending, even by
/// SIGKILL) makes it unreachable to its counterpart.
///
/// ```swift
/// let device = try SimulatedDevice(store: store, address: pair.watch, applicationGroup: "group.example")
/// device.session.setDeliveryHandler { delivery in print(delivery) }
/// try device.session.activate()
/// ```
public final class SimulatedDevice: Sendable {
  public let directory: DeviceDirectory
  /// The device's session: set its handler, then activate it.
  public let session: SessionEngine
  /// The mailboxes received transfers go to.
  public let mailboxes: MailboxDelivery
  /// Journals every event of the session (sends, failures, replies, deliveries) in the journal of
  /// the mailboxes' directory, whichever path made it: the verbs, a control channel, the library.
  public let journal: SessionJournal
  private let runLock: RunLock

  /// Takes the device's run lock (refused with the running one's pid when it runs) and loads
  /// its session, not yet activated. `link` replaces the local Unix-socket link (an
  /// ``MQTTDeviceLink`` to reach a counterpart through a broker); either keeps the device's
  /// ``ReachabilityReport`` in its home (``ReportingLink``), for `pair list`.
  public init(
    store: PairStore, address: DeviceAddress, applicationGroup: String, optionalDirectory: String? = nil,
    codec: FrameCodec = FrameCodec(), link: (any DeviceLink)? = nil
  ) throws(PairStoreError) {
    _ = try store.pair(named: address.pair)
    let directory = store.directory(for: address)
    do {
      runLock = try RunLock(path: directory.runLockPath)
    } catch {
      switch error {
      case .held(let pid): throw .alreadyRunning(address, pid: pid)
      case .unavailable(let reason): throw .fileSystem(reason)
      }
    }
    self.directory = directory
    do {
      mailboxes = try MailboxDelivery(
        device: directory, applicationGroup: applicationGroup, optionalDirectory: optionalDirectory)
      let storage = try FileSessionStorage(directory: directory, mailboxes: mailboxes)
      session = try SessionEngine(
        role: address.role,
        link: ReportingLink(link ?? UnixSocketLink(directory: directory, codec: codec), directory: directory),
        storage: storage,
        clock: { DeviceFiles.now() }, timer: DispatchSessionTimer(),
        maximumPayloadBytes: codec.maximumFrameBytes - 1024)
    } catch { throw .session(error) }
    let journal = SessionJournal(
      address: address, mailboxes: mailboxes, outstanding: session.outstandingTransfers)
    self.journal = journal
    session.setObserver { event in journal.observe(event) }
  }

  /// The device's address.
  public var address: DeviceAddress { directory.address }

  /// Whether its run lock is still the file at `<role>/run.lock`: `false` once the device's
  /// directory was removed or replaced under it, when it no longer holds its role.
  public var holdsItsRole: Bool { runLock.isStillHeld }

  /// Deactivates the session (closing the link), writes what the journal still holds and
  /// releases the run lock.
  public func stop() {
    session.deactivate()
    journal.flush()
    runLock.release()
  }
}
