import ArchivedValues
import DeviceRouting
import DeviceSession
import KeyedArchive
import Synchronization
import Wormhole
import WormholeVocabulary

/// A running device's routes for the pushes and deep links sent to it: a ``Router`` kept for the
/// device's life, the routes of a routes file installed in it, and what their actions do on the
/// device.
///
/// - `pass ID [TRANSITING]`: the URL (as a string archive) or the push's payload (its JSON
///   archived, as `pass ID JSON` archives it) goes to the mailbox `ID`: with `file` (the default)
///   or `coordinated-file` into the device's group container through the `Wormhole` library,
///   with a session type to the counterpart through the device's own session.
/// - `print`: ``Printed`` is handed to the device's program once the route is known.
///
/// Every delivery is recorded in the group container's traffic journal: kind `push` or
/// `deep-link`, the mailbox passed to (or empty), the payload's size, the device
/// (`<pair>/<role>`), the pass's transfer identifier, the route (``TrafficRecord/route``) and the
/// payload itself (``TrafficRecord/payload``), `failed` with the error when the pass failed.
///
/// Deliveries are routed one at a time (a delivery's actions run after its routing, outside the
/// router), so each record pairs with its own pass.
public final class DeviceRoutes: Sendable {
  /// What a `print` route hands the device's program.
  public struct Printed: Sendable, Equatable {
    /// What was routed.
    public var delivery: RouteDelivery
    /// The route it took.
    public var outcome: RouteOutcome
  }

  /// What one delivery did.
  public struct Result: Sendable, Equatable {
    /// The route taken.
    public var outcome: RouteOutcome
    /// The route's action, when a catcher or the delegate took it.
    public var action: RouteAction?
    /// The transfer identifier of a pass to a mailbox of the group container.
    public var transfer: String?
    /// Why the action failed, when it did.
    public var failure: String?
    /// The record written to the journal; `nil` when it could not be (``failure`` says why).
    public var record: TrafficRecord?

    /// The delivery as a device's control socket answers it.
    public var routed: RoutedDelivery {
      RoutedDelivery(description: outcome.description, json: outcome.json, failure: failure)
    }
  }

  /// The router the routes are installed in (more may be registered in code).
  public let router: Router
  private let tokens = Mutex<[RouteToken]>([])
  private let session: SessionEngine?
  private let device: String
  private let sender: String
  private let directory: String
  private let wormholes = Mutex<[TransitingType: Wormhole]>([:])
  /// What the catcher or delegate that took the delivery being routed asked for.
  private let taken = Mutex<(RouteAction, RouteDelivery)?>(nil)
  /// Held for the whole of one delivery.
  private let delivering = Mutex<Void>(())
  private let printer: @Sendable (Printed) -> Void

  /// Routes for the device `address`, whose session is `session` and whose group container's
  /// mailboxes are in `mailboxDirectory` (``MailboxDelivery/directory``). Without `routes`, the
  /// router starts empty: every delivery is unhandled, and still recorded.
  public convenience init(
    routes: RoutesFile?, notificationKey: String = Router.defaultNotificationKey, session: SessionEngine,
    address: DeviceAddress, mailboxDirectory: String, print: @escaping @Sendable (Printed) -> Void = { _ in }
  ) {
    self.init(
      routes: routes, notificationKey: notificationKey, session: session,
      device: address.pair.text + "/" + address.role.rawValue, sender: "device",
      mailboxDirectory: mailboxDirectory, print: print)
  }

  /// The routes of a running simulated device.
  public convenience init(
    routes: RoutesFile?, notificationKey: String = Router.defaultNotificationKey, device: SimulatedDevice,
    print: @escaping @Sendable (Printed) -> Void = { _ in }
  ) {
    self.init(
      routes: routes, notificationKey: notificationKey, session: device.session, address: device.address,
      mailboxDirectory: device.mailboxes.directory, print: print)
  }

  /// Routes for something that has no session, such as a running peer: `pass` goes to a mailbox
  /// in `mailboxDirectory` (`file` or `coordinated-file`), and records name `device` (a peer's
  /// is `peer:NAME#xxxx`) and carry `sender` as the writer. A `pass` with a session type fails
  /// (the failure is answered and recorded): check the file first with ``sessionPasses(in:file:)``.
  public convenience init(
    routes: RoutesFile?, notificationKey: String = Router.defaultNotificationKey, device: String,
    sender: String, mailboxDirectory: String, print: @escaping @Sendable (Printed) -> Void = { _ in }
  ) {
    self.init(
      routes: routes, notificationKey: notificationKey, session: nil, device: device, sender: sender,
      mailboxDirectory: mailboxDirectory, print: print)
  }

  private init(
    routes: RoutesFile?, notificationKey: String, session: SessionEngine?, device: String, sender: String,
    mailboxDirectory: String, print: @escaping @Sendable (Printed) -> Void
  ) {
    router = Router(notificationKey: notificationKey)
    self.session = session
    self.device = device
    self.sender = sender
    directory = mailboxDirectory
    printer = print
    if let routes {
      let installed = routes.install(in: router) { [weak self] action, delivery in
        self?.taken.withLock { $0 = (action, delivery) }
      }
      tokens.withLock { $0 = installed }
    }
  }

  /// The routes of `routes` (read from `file`) whose action passes with a session type, each as
  /// a problem at its line: what a routes file of something without a session cannot do.
  public static func sessionPasses(in routes: RoutesFile, file: String) -> [RoutesFileError] {
    var lines: [(Int, RouteAction)] = routes.routes.map { ($0.line, $0.action) }
    if let delegate = routes.delegate { lines.append((routes.delegateLine ?? 0, delegate)) }
    return lines.sorted { $0.0 < $1.0 }.compactMap { line, action in
      guard case .pass(_, let transiting?) = action,
        [.sessionMessage, .sessionContext, .sessionFile].contains(transiting)
      else { return nil }
      return RoutesFileError(
        file: file, line: line, column: nil,
        message: "a peer has no session to pass \(transiting) to: pass with file or coordinated-file")
    }
  }

  /// Routes `push`, performs the route's action and records the delivery.
  @discardableResult
  public func deliver(_ push: PushNotification) -> Result {
    deliver(.push(push)) { router.route(push) }
  }

  /// Routes `link`, performs the route's action and records the delivery.
  @discardableResult
  public func deliver(_ link: DeepLink) -> Result {
    deliver(.deepLink(link)) { router.route(link) }
  }

  private func deliver(_ delivery: RouteDelivery, routing: () -> RouteOutcome) -> Result {
    delivering.withLock { _ in
      taken.withLock { $0 = nil }
      let outcome = routing()
      let action = taken.withLock { taken in
        defer { taken = nil }
        return taken?.0
      }
      var result = Result(outcome: outcome, action: action)
      var identifier = ""
      var transiting = TransitingType.file
      switch action {
      case .pass(let mailbox, let type)?:
        identifier = mailbox
        transiting = type ?? .file
        do throws(RouteActionError) {
          result.transfer = try pass(delivery, to: mailbox, with: transiting)
        } catch {
          result.failure = error.message
        }
      case .print?:
        printer(Printed(delivery: delivery, outcome: outcome))
      case .decline?, nil:
        break
      }
      let kind: TrafficKind = delivery.kind == .push ? .push : .deepLink
      let details = TrafficDetails(
        device: device, transfer: result.transfer, route: outcome.json,
        payload: String(decoding: delivery.bytes, as: UTF8.self))
      do throws(WormholeError) {
        result.record = try wormhole(.file).record(
          kind: kind, identifier: identifier, bytes: delivery.bytes.count, transiting: transiting,
          details: details, error: result.failure)
      } catch {
        let recording = "cannot record the \(delivery.kind): \(error.description)"
        result.failure = result.failure.map { $0 + "; " + recording } ?? recording
      }
      return result
    }
  }

  /// Passes what was caught to `identifier`; the transfer identifier of a mailbox write.
  private func pass(_ delivery: RouteDelivery, to identifier: String, with transiting: TransitingType)
    throws(RouteActionError) -> String?
  {
    let archive = try Self.archive(delivery)
    switch transiting {
    case .file, .coordinatedFile:
      do throws(WormholeError) {
        let record = try wormhole(transiting).passArchive(
          archive, identifier: identifier, details: TrafficDetails(device: device))
        return record.transfer
      } catch {
        throw RouteActionError(message: error.description)
      }
    case .sessionMessage, .sessionContext, .sessionFile:
      guard let session else {
        throw RouteActionError(message: "there is no session to pass \(transiting) to")
      }
      do throws(SessionError) {
        switch transiting {
        case .sessionMessage: try session.sendMessage(archive, identifier: identifier)
        case .sessionContext: try session.updateApplicationContext(archive, identifier: identifier)
        default: try session.transferFile(archive, identifier: identifier)
        }
      } catch {
        throw RouteActionError(message: error.description)
      }
      return nil
    }
  }

  /// The archive a pass sends: the URL as a string, the push's JSON as its value.
  static func archive(_ delivery: RouteDelivery) throws(RouteActionError) -> [UInt8] {
    let value: ArchivedValue
    switch delivery {
    case .deepLink(let link): value = .string(link.url)
    case .push(let push):
      let parsed = push.bytes.withUnsafeBufferPointer { buffer in
        Swift.Result { () throws(JSONParseError) -> ArchivedValue in try JSONParser().parse(buffer) }
      }
      switch parsed {
      case .success(let success): value = success
      case .failure(let failure): throw RouteActionError(message: "the payload is \(failure)")
      }
    }
    do {
      return try KeyedArchiveEncoder().encodeBytes(value)
    } catch {
      throw RouteActionError(message: "cannot archive the \(delivery.kind): \(error.description)")
    }
  }

  /// The group container's wormhole with `transiting` (opened once).
  private func wormhole(_ transiting: TransitingType) throws(WormholeError) -> Wormhole {
    try wormholes.withLock { wormholes throws(WormholeError) -> Wormhole in
      if let open = wormholes[transiting] { return open }
      var options = Wormhole.Options()
      options.sender = sender
      let opened = try Wormhole(directory: directory, transitingType: transiting, options: options)
      wormholes[transiting] = opened
      return opened
    }
  }
}

/// Why a route's action could not be done.
struct RouteActionError: Error {
  var message: String
}
