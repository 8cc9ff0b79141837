import DeviceRouting
import PeerSession

/// A running peer's routes: the pushes and deep links sent to it (`push --device peer:NAME`,
/// `open-url --device peer:NAME`, through its control socket) are routed as a device routes
/// them (``DeviceRoutes``). A peer has no session, so `pass` goes to a mailbox of the peer's own
/// folder (`<home>/peers/<service>/ID/`, with `file` or `coordinated-file`), and each delivery
/// is a record of the traffic journal there: kind `push` or `deep-link`, device
/// `peer:NAME#xxxx`, the route and the payload.
extension LocalPeer {
  /// The writer's name on the records and mailboxes of the peer's routes.
  static let routesSender = "wormhole-tui peer"

  /// `peer:NAME#xxxx`: the peer as its routes' records name it.
  public var routesLabel: String { DeviceSelector.peerPrefix + PeerJournal.label(identity) }

  /// Routes the pushes and deep links sent to this peer by `file` (read from `name`), matching
  /// pushes on `aps.<notificationKey>`; `print` routes hand what they printed to `print`.
  /// Without routes set, every delivery is unhandled, and still recorded.
  ///
  /// - Throws: ``RoutesFileErrors`` naming every route that passes with a session type (a peer
  ///   has none); the routes are then left as they were.
  public func setRoutes(
    _ file: RoutesFile, named name: String, notificationKey: String = Router.defaultNotificationKey,
    print: @escaping @Sendable (DeviceRoutes.Printed) -> Void = { _ in }
  ) throws(RoutesFileErrors) {
    let problems = DeviceRoutes.sessionPasses(in: file, file: name)
    guard problems.isEmpty else { throw RoutesFileErrors(errors: problems) }
    let installed = makeRoutes(file, notificationKey: notificationKey, print: print)
    routes.withLock { $0 = installed }
  }

  /// The routes deliveries go to: those set, or empty ones (made once).
  public var currentRoutes: DeviceRoutes {
    routes.withLock { routes in
      if let routes { return routes }
      let empty = makeRoutes(nil, notificationKey: Router.defaultNotificationKey) { _ in }
      routes = empty
      return empty
    }
  }

  private func makeRoutes(
    _ file: RoutesFile?, notificationKey: String, print: @escaping @Sendable (DeviceRoutes.Printed) -> Void
  ) -> DeviceRoutes {
    DeviceRoutes(
      routes: file, notificationKey: notificationKey, device: routesLabel, sender: Self.routesSender,
      mailboxDirectory: directory.peerPath(identity.id), print: print)
  }

  /// Answers `push PAYLOAD` (the payload's JSON): the route it took
  /// (``RoutedDelivery/peerAnswer``); a payload that is refused is an error of code 2.
  func answerPush(_ request: PeerControlMessage) throws(PeerControlFailure) -> String {
    let notification: PushNotification
    do throws(PushPayloadError) {
      notification = try PushNotification(json: request.fields.count > 1 ? request.fields[1] : [])
    } catch {
      throw PeerControlFailure(2, error.description)
    }
    return currentRoutes.deliver(notification).routed.peerAnswer
  }

  /// Answers `open-url URL`: the route it took (``RoutedDelivery/peerAnswer``); a URL that is
  /// refused is an error of code 2.
  func answerOpenURL(_ request: PeerControlMessage) throws(PeerControlFailure) -> String {
    let text = request.text(1)
    guard text.utf8.count <= DeepLink.maximumWireBytes else {
      throw PeerControlFailure(2, "the URL is \(text.utf8.count) bytes; at most \(DeepLink.maximumWireBytes)")
    }
    let link: DeepLink
    do { link = try DeepLink(text) } catch {
      throw PeerControlFailure(2, "\(PairDisplay.field(text)) is \(error.description)")
    }
    return currentRoutes.deliver(link).routed.peerAnswer
  }
}
