import ArchivedValues
import DeviceRouting
import PeerSession

/// Sends a push notification or a deep link to one running peer through its control socket
/// (``PeerControlChannel``), as `push`/`open-url --device peer:NAME` and the dashboard's route
/// form do: the peer routes it (``LocalPeer/setRoutes(_:named:notificationKey:print:)``) and
/// answers with the route taken (``RoutedDelivery/peerAnswer``).
///
/// The peer is named by its folder of peers and its id, so a peer that ended is told from one
/// that does not answer: its run lock is free (``PeerRouteError/notRunning(_:)``), and nothing
/// was sent, or it holds it and gave no answer in time (``PeerRouteError/noAnswer(_:seconds:)``).
/// Every wait is bounded by `seconds`.
public struct PeerRouteClient: Sendable, Hashable {
  /// The peer's control socket.
  public var controlSocketPath: String
  /// Its run lock, held while it runs.
  public var lockPath: String
  /// The peer as messages name it (`peer:NAME#xxxx`; raw, escaped when shown).
  public var label: String

  /// How long the verbs wait for the peer's answer.
  public static let answerSeconds = 30.0

  /// The peer `id` of the folder of peers `directory`, named `label` in messages.
  public init(directory: PeerDirectory, id: UInt64, label: String) {
    controlSocketPath = directory.controlSocketPath(id)
    lockPath = directory.lockPath(id)
    self.label = label
  }

  /// A running peer, as ``RunningPeer/all(home:service:)`` found it.
  public init(_ peer: RunningPeer) {
    self.init(
      directory: peer.directory, id: peer.identity.id,
      label: DeviceSelector.peerPrefix + PeerJournal.label(peer.identity))
  }

  /// The control request that pushes `notification`.
  public static func request(_ notification: PushNotification) -> PeerControlMessage {
    PeerControlMessage([Array("push".utf8), notification.bytes])
  }

  /// The control request that opens `link`.
  public static func request(_ link: DeepLink) -> PeerControlMessage {
    PeerControlMessage(text: ["open-url", link.url])
  }

  /// Pushes `notification` to the peer; the route it took.
  public func push(_ notification: PushNotification, seconds: Double = answerSeconds)
    throws(PeerRouteError) -> RoutedDelivery
  {
    try deliver(Self.request(notification), seconds: seconds)
  }

  /// Opens `link` on the peer; the route it took.
  public func open(_ link: DeepLink, seconds: Double = answerSeconds) throws(PeerRouteError) -> RoutedDelivery
  {
    try deliver(Self.request(link), seconds: seconds)
  }

  /// Sends `request` (a `push` or `open-url` request) and reads the route from the answer.
  public func deliver(_ request: PeerControlMessage, seconds: Double = answerSeconds)
    throws(PeerRouteError) -> RoutedDelivery
  {
    guard isRunning else { throw .notRunning(label) }
    guard let answer = PeerControlChannel.exchange(request, path: controlSocketPath, seconds: seconds) else {
      // Ended meanwhile (its lock is free now), or alive and silent.
      if !isRunning { throw .notRunning(label) }
      throw .noAnswer(label, seconds: seconds)
    }
    guard answer.text(0) == "ok" else {
      throw .refused(label, isUsage: answer.text(1) == "2", message: answer.text(2))
    }
    guard let routed = RoutedDelivery(peerAnswer: answer.text(1)) else { throw .notARoute(label) }
    return routed
  }

  /// Whether a process holds the peer's run lock.
  public var isRunning: Bool { RunLock.holder(at: lockPath) != nil }
}

/// Why a push or a deep link did not reach a peer's routes, or what the peer said against it.
/// Peers are named raw (`peer:NAME#xxxx`): ``description`` escapes them.
public enum PeerRouteError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The peer does not run (it ended): nothing was sent.
  case notRunning(String)
  /// The peer runs but gave no answer within `seconds` (stopped, or busy): the delivery may
  /// still be routed when it goes on.
  case noAnswer(String, seconds: Double)
  /// The peer refused the request (`isUsage`: the payload or URL, exit code 2 for a verb).
  case refused(String, isUsage: Bool, message: String)
  /// The peer's answer carries no route.
  case notARoute(String)

  public var description: String {
    switch self {
    case .notRunning(let peer):
      return
        "\(DisplayText.field(peer)) is not running (it ended, or was never started with peer run); nothing was sent"
    case .noAnswer(let peer, let seconds):
      let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
      return "\(DisplayText.field(peer)) gave no answer on its control socket within \(shown) s "
        + "(stopped, or busy); it may still route it when it goes on"
    case .refused(_, _, let message): return DisplayText.escaped(message)
    case .notARoute(let peer): return "\(DisplayText.field(peer)) answered something that is not a route"
    }
  }
}
