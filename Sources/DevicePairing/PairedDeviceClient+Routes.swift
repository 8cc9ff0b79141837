import DeviceRouting
import DeviceSession

extension PairedDeviceClient {
  /// Sends a push notification to the device, which routes it (``DeviceRoutes``) and answers
  /// with the route taken. Only a running device takes one: `nil` when the device is not
  /// running (nothing is sent, nothing queued).
  ///
  /// Throws ``PairedDeviceError/store(_:)`` for a missing pair, ``PairedDeviceError/notAnswering(_:pid:)``
  /// when a process holds the role without serving its control socket, and
  /// ``PairedDeviceError/routeRefused(_:reason:)`` when the device takes no pushes or refuses
  /// this one.
  public func push(_ notification: PushNotification) throws(PairedDeviceError) -> RoutedDelivery? {
    try route(DeviceFrame(kind: .push, sender: address.role, time: 0, payload: notification.bytes))
  }

  /// Opens `link` on the device, which routes it and answers with the route taken; `nil` when
  /// the device is not running. Throws as ``push(_:)`` does, and
  /// ``PairedDeviceError/controlChannel(_:reason:)`` for a URL longer than
  /// `DeepLink.maximumWireBytes`.
  public func open(_ link: DeepLink) throws(PairedDeviceError) -> RoutedDelivery? {
    let bytes = Array(link.url.utf8)
    guard bytes.count <= DeepLink.maximumWireBytes else {
      throw .controlChannel(
        address, reason: "the URL is \(bytes.count) bytes; at most \(DeepLink.maximumWireBytes) are sent")
    }
    return try route(DeviceFrame(kind: .deepLink, sender: address.role, time: 0, payload: bytes))
  }

  /// How long a routed delivery may take to be answered (a pass to the counterpart included).
  static let routingSeconds = 30.0

  private func route(_ request: DeviceFrame) throws(PairedDeviceError) -> RoutedDelivery? {
    do { _ = try store.pair(named: address.pair) } catch { throw PairedDeviceError(error) }
    let directory = store.directory(for: address)
    guard let pid = RunLock.holder(at: directory.runLockPath) else { return nil }
    try Self.refuseIfStopped(address, pid: pid)
    guard
      let frame = try DeviceControlChannel.exchange(request, with: directory, waiting: Self.routingSeconds)
    else {
      // Stopped in between, or running without a control socket (starting, or not a device run).
      guard RunLock.holder(at: directory.runLockPath) != nil else { return nil }
      throw .notAnswering(address, pid: pid)
    }
    return try RoutedDelivery(answer: frame, from: address, answerer: "the running device")
  }
}
