import DeviceSession

/// What a device did with a push notification or a deep link sent to it: the route it took, and
/// whether the route's action worked. A route is an answer even when nobody took the delivery
/// (`unhandled`); ``failure`` is set only when the route's `pass` could not be done.
///
/// On a device's control socket it is the answer to a `.push` or `.deepLink` frame: a `.reply`
/// frame whose `sequence` is ``answerSequence``, its payload three texts (`u32 length, UTF-8`
/// each): the description, the JSON, and the failure (empty when there is none), with `flags`
/// `replyRequested` set when there is a failure.
///
/// On a peer's control socket it is the text of the `ok` answer to a `push` or `open-url`
/// request (``peerAnswer``): the description, a line feed, the JSON, and when there is a failure
/// a line feed and the failure (neither the description nor the JSON holds a line feed).
public struct RoutedDelivery: Sendable, Equatable, CustomStringConvertible {
  /// The route in a few words (`RouteOutcome.description`: `catcher 0 "…" (app.routes:1)`,
  /// `delegate`, `unhandled`), escaped for a terminal.
  public var description: String
  /// The route as one JSON object (`RouteOutcome.json`), as the traffic record's `route` holds it.
  public var json: String
  /// Why the route's action failed (the pass's error), when it did; the route was still taken.
  public var failure: String?

  public init(description: String, json: String, failure: String? = nil) {
    self.description = description
    self.json = json
    self.failure = failure
  }

  /// The `sequence` of a `.reply` frame that carries a routed delivery (a ``ControlAnswer`` uses
  /// 1 to 5).
  static let answerSequence: UInt64 = 6

  func frame(sender: DeviceRole) -> DeviceFrame {
    var writer = ByteWriter()
    for text in [description, json, failure ?? ""] {
      let bytes = Array(text.utf8)
      writer.append(UInt32(truncatingIfNeeded: bytes.count))
      writer.append(contentsOf: bytes)
    }
    return DeviceFrame(
      kind: .reply, sequence: Self.answerSequence, sender: sender, time: 0,
      flags: failure == nil ? [] : .replyRequested, payload: writer.bytes)
  }

  /// The routed delivery a `.reply` frame carries; any other frame is refused.
  init(_ frame: DeviceFrame) throws(FrameError) {
    guard frame.kind == .reply, frame.sequence == Self.answerSequence else {
      throw .malformed("the answer is not a routed delivery")
    }
    var reader = ByteReader(frame.payload)
    var texts: [String] = []
    for what in ["route", "route JSON", "failure"] {
      texts.append(try reader.readText(Int(try reader.readUInt32()), what: what))
    }
    guard reader.remaining == 0 else { throw .malformed("\(reader.remaining) bytes follow the answer") }
    self.init(
      description: texts[0], json: texts[1],
      failure: frame.flags.contains(.replyRequested) ? texts[2] : nil)
  }

  /// The routed delivery `answer` carries: the frame a device answered a `.push` or `.deepLink`
  /// with, on its control socket or through a broker. A ``ControlAnswer`` that says the request
  /// failed throws its ``PairedDeviceError/session(_:)``; any other answer, or one that cannot be
  /// read, a ``PairedDeviceError/controlChannel(_:reason:)`` that names the device as `answerer`
  /// (`the running device`).
  init(answer: DeviceFrame, from address: DeviceAddress, answerer: String) throws(PairedDeviceError) {
    if let failed = try? ControlAnswer(answer) {
      // The device's refusal of the request travels as a refused frame (the answer's kind
      // for it since routes came): said as the device's refusal, not the counterpart's frame.
      if case .failed(.refusedFrame(let reason)) = failed { throw .routeRefused(address, reason: reason) }
      if case .failed(let error) = failed { throw .session(error) }
      throw .controlChannel(address, reason: "\(answerer) answered another request than the one sent")
    }
    do throws(FrameError) { try self.init(answer) } catch {
      throw .controlChannel(address, reason: "\(answerer)'s answer cannot be read: \(error)")
    }
  }

  /// The text of a peer's `ok` answer that carries this delivery.
  public var peerAnswer: String {
    description + "\n" + json + (failure.map { "\n" + $0 } ?? "")
  }

  /// The routed delivery a peer's `ok` answer carries, or `nil` when the text holds none.
  public init?(peerAnswer text: String) {
    let parts = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count >= 2, parts[1].hasPrefix("{") else { return nil }
    self.init(
      description: String(parts[0]), json: String(parts[1]), failure: parts.count > 2 ? String(parts[2]) : nil
    )
  }
}
