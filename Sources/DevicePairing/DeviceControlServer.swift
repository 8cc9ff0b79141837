import DeviceRouting
import DeviceSession
import Glibc
import Synchronization

/// The device side of the control socket (``DeviceControlChannel``): a running device (such as
/// `device run`) serves `<role>/control.sock`, so that other processes (`pass`, `clear`,
/// `transfers cancel`, the dashboard, through ``PairedDeviceClient``) can have its own session
/// send, update or clear its context, transfer and cancel, with the same results and errors
/// as the device's own program would get.
///
/// Serve it before activating the session (a request that arrives first is refused with
/// `notActivated`, 7004), and stop it before releasing the device's run lock.
///
/// ```swift
/// let device = try SimulatedDevice(store: store, address: address, applicationGroup: group)
/// let control = try DeviceControlServer(session: device.session, directory: device.directory)
/// try device.session.activate()
/// // …
/// control.stop()
/// device.stop()
/// ```
public final class DeviceControlServer: Sendable {
  /// The socket's path.
  public let path: String
  private let session: SessionEngine
  private let routes: DeviceRoutes?
  private let listener: Int32
  private let acknowledgementSeconds: Double
  private let isStopping = Atomic<Bool>(false)
  /// How long a connection may take to send its request.
  static let requestSeconds = 10.0

  /// Listens on the device's control socket (0600; a dead device's socket file is replaced, as
  /// the caller holds the run lock) and answers each connection on a thread of its own.
  ///
  /// - Parameters:
  ///   - acknowledgementSeconds: How long a context or transfer request waits for the
  ///     reachable counterpart to store it before answering.
  ///   - routes: The device's routes, which take the pushes and deep links sent to it (a `.push`
  ///     or `.deepLink` frame, answered with the ``RoutedDelivery``); without them, those are
  ///     refused (`refusedFrame`).
  public init(
    session: SessionEngine, directory: DeviceDirectory, acknowledgementSeconds: Double = 10,
    routes: DeviceRoutes? = nil
  ) throws(PairedDeviceError) {
    let path = DeviceControlChannel.socketPath(of: directory)
    self.path = path
    self.session = session
    self.routes = routes
    self.acknowledgementSeconds = acknowledgementSeconds
    func failure() -> PairedDeviceError {
      .controlChannel(
        directory.address,
        reason:
          "cannot serve the control socket \(PairDisplay.path(path)): \(String(cString: strerror(errno)))")
    }
    listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else { throw failure() }
    _ = unlink(path)  // a dead device's; the run lock says none is alive
    // Not through umask, which is the whole process's: the device's directory is 0700 anyway.
    let bound = LocalSocket.withAddress(path) { bind(listener, $0, $1) }
    guard bound == 0, chmod(path, 0o600) == 0, listen(listener, 8) == 0 else {
      let error = failure()
      _ = close(listener)
      throw error
    }
    guard SystemThread.detach({ [self] in acceptConnections() }) else {
      let error = failure()
      _ = close(listener)
      _ = unlink(path)
      throw error
    }
  }

  /// Stops accepting connections and removes the socket file; requests being answered finish.
  public func stop() {
    guard !isStopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
    _ = shutdown(listener, Int32(SHUT_RDWR))  // wakes the accepting thread, which closes it
    _ = unlink(path)
  }

  private func acceptConnections() {
    while true {
      let connection = accept(listener, nil, nil)
      if connection >= 0 { _ = fcntl(connection, F_SETFD, FD_CLOEXEC) }
      if connection < 0 {
        if !isStopping.load(ordering: .acquiring) && (errno == EINTR || errno == ECONNABORTED) { continue }
        _ = close(listener)
        return
      }
      if !SystemThread.detach({ [self] in answer(connection) }) { _ = close(connection) }
    }
  }

  private func answer(_ connection: Int32) {
    defer { _ = close(connection) }
    DeviceControlChannel.setTimeout(connection, seconds: Self.requestSeconds)
    guard let frame = DeviceControlChannel.readFrame(connection), frame.sender == session.role else { return }
    if frame.kind == .push || frame.kind == .deepLink {
      let reply = route(frame)
      if let bytes = try? FrameCodec().encode(reply) { _ = DeviceControlChannel.writeAll(connection, bytes) }
      return
    }
    guard let request = ControlRequest(frame) else { return }
    let operations = SessionOperations(
      session: session, events: DeliveryLog(), acknowledgementSeconds: acknowledgementSeconds)
    let answer: ControlAnswer
    do throws(SessionError) { answer = try operations.perform(request) } catch { answer = .failed(error) }
    if let bytes = try? FrameCodec().encode(answer.frame(sender: session.role)) {
      _ = DeviceControlChannel.writeAll(connection, bytes)
    }
  }

  /// The answer to a push or a deep link: the routed delivery, or the reason it was refused.
  private func route(_ frame: DeviceFrame) -> DeviceFrame {
    func refusal(_ reason: String) -> DeviceFrame {
      ControlAnswer.failed(.refusedFrame(reason)).frame(sender: session.role)
    }
    guard let routes else { return refusal("this device takes no pushes or deep links") }
    if frame.kind == .push {
      do throws(PushPayloadError) {
        return routes.deliver(try PushNotification(json: frame.payload)).routed.frame(sender: session.role)
      } catch { return refusal(error.description) }
    }
    guard frame.payload.count <= DeepLink.maximumWireBytes,
      let text = String(validating: frame.payload, as: UTF8.self)
    else { return refusal("the URL is not text of at most \(DeepLink.maximumWireBytes) bytes") }
    do throws(DeepLinkError) {
      return routes.deliver(try DeepLink(text)).routed.frame(sender: session.role)
    } catch { return refusal(error.description) }
  }
}
