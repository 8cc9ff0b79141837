import DeviceRouting
import DeviceSession
import Dispatch
import Foundation
import MQTTClient
import Synchronization

/// Pushes and deep links to a device that runs on another machine (`device run --broker`):
/// published to its `push` topic (``DeviceTopics``), answered by the device on its `routed`
/// topic with the route taken, as the control socket answers on one machine.
///
/// A request is a `.push` or `.deepLink` frame, addressed as on the control socket (the
/// device's own role as sender), whose identifier is a random request identifier (32 hex
/// digits); the answer is the ``RoutedDelivery`` (or the refusal) with the same identifier.
/// Pushes are live only (QoS 0 to the device): a device that is not running is not handed one
/// later, and the request ends without an answer.
public enum BrokerRouting {
  /// How long a request waits for its answer by default: the control socket's limit.
  public static let defaultTimeout = 30.0

  /// Sends `notification` to the device at `address` through `broker` and returns the route it
  /// took, or `nil` when no answer came within `timeout` seconds (the device is not running,
  /// or not connected to that broker).
  ///
  /// Throws ``PairedDeviceError/session(_:)`` with `refusedFrame` when the device takes no
  /// pushes, and ``PairedDeviceError/controlChannel(_:reason:)`` when the broker cannot be used
  /// or refuses the request (its ACL, under MQTT 5), at once, with the broker's reason.
  public static func push(
    _ notification: PushNotification, to address: DeviceAddress, through broker: BrokerAddress,
    timeout: Double = defaultTimeout
  ) throws(PairedDeviceError) -> RoutedDelivery? {
    try request(
      DeviceFrame(kind: .push, sender: address.role, time: 0, payload: notification.bytes), to: address,
      through: broker, timeout: timeout)
  }

  /// Opens `link` on the device at `address` through `broker`; as ``push(_:to:through:timeout:)``.
  public static func open(
    _ link: DeepLink, on address: DeviceAddress, through broker: BrokerAddress,
    timeout: Double = defaultTimeout
  ) throws(PairedDeviceError) -> RoutedDelivery? {
    let bytes = Array(link.url.utf8)
    guard bytes.count <= DeepLink.maximumWireBytes else {
      throw .controlChannel(
        address, reason: "the URL is \(bytes.count) bytes; at most \(DeepLink.maximumWireBytes) are sent")
    }
    return try request(
      DeviceFrame(kind: .deepLink, sender: address.role, time: 0, payload: bytes), to: address,
      through: broker,
      timeout: timeout)
  }

  private static func request(
    _ request: DeviceFrame, to address: DeviceAddress, through broker: BrokerAddress, timeout: Double
  ) throws(PairedDeviceError) -> RoutedDelivery? {
    let topics: DeviceTopics
    do throws(LinkError) { topics = try DeviceTopics(address: address) } catch {
      throw .controlChannel(address, reason: error.reason)
    }
    var frame = request
    frame.identifier = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max)) }.joined()
    let codec = FrameCodec()
    let bytes: [UInt8]
    do throws(FrameError) { bytes = try codec.encode(frame) } catch {
      throw .controlChannel(address, reason: error.description)
    }
    let connected = DispatchSemaphore(value: 0)
    let answered = DispatchSemaphore(value: 0)
    let answer = Mutex<DeviceFrame?>(nil)
    // The broker's refusal (its ACL, under MQTT 5: of the request's publication; or of the
    // connection): said at once instead of waiting out the timeout.
    let refusal = Mutex<String?>(nil)
    let identifier = frame.identifier
    let answerTopic = topics.topic(.routed)
    let client: MQTTClient
    do {
      client = try MQTTClient(clientIdentifier: "wormhole/v1/route/\(identifier)", cleanSession: true) {
        event in
        switch event {
        case .connected:
          connected.signal()
        case .received(let message):
          // The answers of every request to this device arrive here: only this one's counts.
          guard message.topic == answerTopic, let reply = try? codec.decode(message.payload),
            reply.kind == .reply, reply.identifier == identifier, reply.sender == address.role
          else { return }
          answer.withLock { $0 = $0 ?? reply }
          answered.signal()
        case .refused(let reason):
          refusal.withLock { $0 = $0 ?? reason }
          connected.signal()
          answered.signal()
        default:
          break
        }
      }
      try client.connect(to: broker)
    } catch {
      throw .controlChannel(address, reason: error.description)
    }
    defer { client.disconnect() }
    let deadline = DispatchTime.now() + .milliseconds(Int(max(0, min(timeout, 3600)) * 1000))
    guard connected.wait(timeout: deadline) == .success, refusal.withLock({ $0 }) == nil else {
      throw .controlChannel(
        address, reason: refusal.withLock { $0 } ?? "the broker \(broker) did not accept the connection")
    }
    do throws(MQTTError) {
      // Subscribed before the request goes out, on the same connection: the answer cannot be missed.
      try client.subscribe(answerTopic, quality: .atLeastOnce)
      try client.publish(bytes, to: topics.topic(.push), quality: .atLeastOnce, retained: false)
    } catch {
      throw .controlChannel(address, reason: error.description)
    }
    guard answered.wait(timeout: deadline) == .success, let reply = answer.withLock({ $0 }) else {
      if let refused = refusal.withLock({ $0 }) { throw .controlChannel(address, reason: refused) }
      return nil
    }
    return try RoutedDelivery(answer: reply, from: address, answerer: "the device")
  }
}
