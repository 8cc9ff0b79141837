import DeviceSession
import Synchronization
import Wormhole
import WormholeVocabulary

/// The shared listening session of a simulated device this process runs: MMWormholeSession's
/// `sharedListeningSession`, one per device.
///
/// Every session wormhole opened on the device (``Wormhole/init(session:transitingType:options:)``)
/// registers here, and what the counterpart sends (messages, contexts, file transfers) reaches
/// the listeners of each, by identifier, whichever session type carried it. Deliveries wait
/// until ``activateSessionListening()``: set the listeners first, then activate, and nothing that
/// arrived before is missed.
///
/// ```swift
/// let session = try ListeningSession.shared(
///   store: PairStore(home: home), address: pair.watch, applicationGroup: "group.example")
/// let wormhole = try Wormhole(session: session, transitingType: .sessionMessage)
/// let token = try wormhole.listenForMessage(withIdentifier: "tap") { print($0.message as Any) }
/// try session.activateSessionListening()
/// ```
///
/// The device's session is activated as soon as a wormhole is opened on it (so that it can send
/// and is reachable); only the hand-over of what arrives waits for activation.
public final class ListeningSession: Sendable {
  /// The device the session listens for; its delivery handler belongs to this session.
  public let device: SimulatedDevice
  /// The device's own mailboxes (its application group's directory), where received transfers
  /// are stored and the journal is kept.
  public let mailboxes: FileTransiting
  private let ownsDevice: Bool
  private let state = Mutex(State())

  private struct State {
    var inboxes: [TransitingInbox] = []
    var observer: (@Sendable (SessionDelivery) -> Void)?
    var isListening = false
    var isStopped = false
  }

  private struct Entry {
    weak var session: ListeningSession?
  }

  /// The live sessions of this process, by device directory.
  private static let live = Mutex<[String: Entry]>([:])

  private init(device: SimulatedDevice, ownsDevice: Bool) {
    self.device = device
    self.ownsDevice = ownsDevice
    mailboxes = FileTransiting(directory: device.mailboxes.directory)
  }

  deinit {
    if ownsDevice { device.stop() }
  }

  /// The listening session of `device`, made on first use. It takes over the device session's
  /// delivery handler when listening is activated.
  public static func shared(for device: SimulatedDevice) -> ListeningSession {
    live.withLock { live in
      let key = device.directory.path
      if let session = live[key]?.session, session.device === device { return session }
      let session = ListeningSession(device: device, ownsDevice: false)
      live[key] = Entry(session: session)
      return session
    }
  }

  /// The listening session of the device at `address`, opening the device (taking its run lock)
  /// when this process does not run it yet; the session then stops the device when it goes away
  /// (or on ``stop()``). The mailboxes are those of `applicationGroup` (and `optionalDirectory`)
  /// in the device's containers.
  ///
  /// - Throws: ``WormholeError/deviceUnavailable(device:reason:)`` when there is no such pair,
  ///   another process runs the device, or this process runs it for another application group.
  public static func shared(
    store: PairStore, address: DeviceAddress, applicationGroup: String, optionalDirectory: String? = nil
  ) throws(WormholeError) -> ListeningSession {
    let directory = store.directory(for: address)
    let mailboxes = try WormholeHome.directoryPath(
      applicationGroupIdentifier: applicationGroup, optionalDirectory: optionalDirectory, home: directory.path
    )
    return try live.withLock { live throws(WormholeError) -> ListeningSession in
      if let session = live[directory.path]?.session, !session.isStopped {
        guard session.device.mailboxes.directory == mailboxes else {
          throw .deviceUnavailable(
            device: Self.name(address),
            reason:
              "this process runs it for the mailboxes in \(session.device.mailboxes.directory); open every wormhole of one device with one application group and directory"
          )
        }
        return session
      }
      let device: SimulatedDevice
      do throws(PairStoreError) {
        device = try SimulatedDevice(
          store: store, address: address, applicationGroup: applicationGroup,
          optionalDirectory: optionalDirectory)
      } catch {
        throw .deviceUnavailable(device: Self.name(address), reason: error.description)
      }
      let session = ListeningSession(device: device, ownsDevice: true)
      live[directory.path] = Entry(session: session)
      return session
    }
  }

  /// `<pair>/<role>`, as traffic records name devices.
  static func name(_ address: DeviceAddress) -> String { address.pair.text + "/" + address.role.rawValue }

  /// The device fields of what this device sends: itself, and its counterpart as the peer.
  public var recordDetails: TrafficDetails {
    TrafficDetails(device: Self.name(device.address), peer: Self.name(device.address.counterpart))
  }

  /// Whether ``activateSessionListening()`` was called.
  public var isListening: Bool { state.withLock { $0.isListening } }

  private var isStopped: Bool { state.withLock { $0.isStopped } }

  /// Starts handing what the counterpart sent to the listeners, beginning with everything that
  /// arrived since the device's session was activated, in order; activates the device's session
  /// if it is not yet. Call it after setting the listeners. Calling it again does nothing more.
  public func activateSessionListening() throws(WormholeError) {
    let isNew = state.withLock { state -> Bool in
      defer { state.isListening = true }
      return !state.isListening
    }
    if isNew { device.session.setDeliveryHandler { [weak self] delivery in self?.handle(delivery) } }
    try activateDevice()
  }

  /// Calls `observer` with every delivery of the device's session once listening is activated
  /// (activation, reachability, transfers finished, failures included), after the listeners
  /// heard it. Replaces any earlier observer; `nil` removes it.
  public func observeSession(_ observer: (@Sendable (SessionDelivery) -> Void)?) {
    state.withLock { $0.observer = observer }
  }

  /// Stops the device this session opened (deactivating its session and releasing its run
  /// lock); a device the caller opened is the caller's to stop. Later wormholes on the address
  /// open the device again.
  public func stop() {
    state.withLock { $0.isStopped = true }
    if ownsDevice { device.stop() }
  }

  /// Activates the device's session (`notActivated` → `activated`) if it is not yet.
  func activateDevice() throws(WormholeError) {
    guard device.session.activationState == .notActivated else { return }
    do throws(SessionError) { try device.session.activate() } catch {
      throw .deviceUnavailable(device: Self.name(device.address), reason: error.description)
    }
  }

  /// Adds a wormhole's inbox: from now on it hears what arrives.
  func register(_ inbox: TransitingInbox) {
    state.withLock { $0.inboxes.append(inbox) }
  }

  private func handle(_ delivery: SessionDelivery) {
    let (observer, inboxes) = state.withLock { state in
      state.inboxes.removeAll { !$0.isOpen }
      return (state.observer, state.inboxes)
    }
    defer { observer?(delivery) }
    var details = TrafficDetails(
      device: Self.name(device.address), peer: Self.name(device.address.counterpart), delivery: .delivered)
    switch delivery {
    case .message(let message):
      for inbox in inboxes {
        // An empty message is a notification without one (`passMessage(nil, ...)`).
        inbox.deliver(
          message.payload.isEmpty ? nil : message.payload, identifier: message.identifier,
          transiting: .sessionMessage, details: details,
          milliseconds: message.time / 1_000_000)
      }
    case .context(let received):
      // An identical context delivered on request names no changed identifier: all of it is news.
      let identifiers =
        received.changedIdentifiers.isEmpty ? received.context.identifiers : received.changedIdentifiers
      for identifier in identifiers {
        // A removed identifier is no message.
        guard let archive = received.context.entries[identifier] else { continue }
        for inbox in inboxes {
          inbox.deliver(
            archive, identifier: identifier, transiting: .sessionContext, details: details,
            milliseconds: received.time / 1_000_000)
        }
      }
    case .transfer(let transfer):
      // The identifier the sender's journal and the stored mailbox carry (`<pair>/<role>#id`).
      details.transfer = SessionJournal.transferIdentifier(
        sender: Self.name(device.address.counterpart), transfer: transfer.id)
      for inbox in inboxes {
        inbox.deliver(
          transfer.payload, identifier: transfer.identifier, transiting: .sessionFile, details: details,
          milliseconds: transfer.time / 1_000_000)
      }
    case .activated, .reachabilityChanged, .transferFinished, .failure:
      break
    }
  }

  /// Why a notification without a message cannot travel by `type`.
  static func noNotifications(_ type: TransitingType) -> WormholeError {
    .sessionFailed(
      type, code: nil,
      reason:
        "a notification without a message travels only as session-message (a \(type.rawValue) always carries an archive); pass a message, or notify through a session-message wormhole"
    )
  }

  /// A session failure as the library reports it, with WatchConnectivity's code.
  static func failure(_ error: SessionError, _ type: TransitingType) -> WormholeError {
    .sessionFailed(type, code: error.code, reason: error.description)
  }
}
