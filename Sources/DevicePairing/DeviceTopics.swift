import DeviceSession

/// Where a device's traffic lives on an MQTT broker: one topic per kind, under the device.
///
/// ```
/// PREFIX/pairs/PAIR/ROLE/presence   "online" (retained) or "offline" (retained; the Last Will)
/// PREFIX/pairs/PAIR/ROLE/context    the newest session-context frame (retained, QoS 1)
/// PREFIX/pairs/PAIR/ROLE/message    session-message frames and replies (QoS 1, live only)
/// PREFIX/pairs/PAIR/ROLE/transfer   session-file frames (QoS 1, queued for the receiver)
/// PREFIX/pairs/PAIR/ROLE/ack        acknowledgements of transfers and contexts (QoS 1, queued)
/// PREFIX/pairs/PAIR/ROLE/push       pushes and deep links *to* ROLE (QoS 0, live only)
/// PREFIX/pairs/PAIR/ROLE/routed     ROLE's answers to them: the route taken (QoS 1)
/// ```
/// `ROLE` is the device that publishes, except on `push`, which anyone may publish to and the
/// device subscribes to (its answer, on `routed`, carries the request's identifier); each device
/// subscribes to its counterpart's first five topics and its own `push`. Frames are the link's ``FrameCodec`` bytes, length prefix
/// included, one frame per message. The default prefix is `wormhole/v1`.
public struct DeviceTopics: Sendable, Equatable {
  /// The prefix of every topic when none is given; `v1` is the version of this layout.
  public static let defaultPrefix = "wormhole/v1"

  /// What a topic of a device carries.
  public enum Kind: String, Sendable, CaseIterable {
    case presence, context, message, transfer, ack, push, routed
  }

  /// The device whose topics these are.
  public let address: DeviceAddress
  public let prefix: String

  /// The topics of `address` under `prefix`, or why they cannot be: MQTT reserves `+` and `#`
  /// (wildcards) and a topic must not start with `$`, so a pair name or a prefix with them
  /// cannot travel through a broker.
  public init(address: DeviceAddress, prefix: String = DeviceTopics.defaultPrefix) throws(LinkError) {
    try Self.checkTopicLevels(address.pair.text, naming: "the pair name")
    try Self.checkPrefix(prefix)
    self.address = address
    self.prefix = prefix
  }

  /// Throws unless `prefix` can stand before topics on a broker: free of what
  /// ``checkTopicLevels(_:naming:)`` refuses, not empty, not starting with `$` (MQTT's system
  /// topics) or `/`, not ending with `/`. ``PeerTopics`` checks its prefix with it too.
  static func checkPrefix(_ prefix: String) throws(LinkError) {
    try checkTopicLevels(prefix, naming: "the topic prefix")
    guard !prefix.isEmpty, !prefix.hasPrefix("$"), !prefix.hasPrefix("/"), !prefix.hasSuffix("/") else {
      throw LinkError("the topic prefix must not be empty, start with '$' or '/', or end with '/'")
    }
  }

  /// Throws when `text` (`what` in the message) holds `+` or `#` (MQTT's wildcards) or NUL.
  private static func checkTopicLevels(_ text: String, naming what: String) throws(LinkError) {
    if text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") || $0 == 0 }) {
      throw LinkError("\(what) contains '+', '#' or NUL, which MQTT topics cannot hold")
    }
  }

  /// `PREFIX/pairs/PAIR/ROLE`.
  public var device: String { "\(prefix)/pairs/\(address.pair.text)/\(address.role)" }

  /// The topic of `kind` for this device.
  public func topic(_ kind: Kind) -> String { "\(device)/\(kind.rawValue)" }

  /// `PREFIX/pairs/PAIR/ROLE/claim`: the newest run's claim to this device's client identifier
  /// (retained, QoS 1), which a device of the same role on another machine reads to learn that
  /// it lost the identifier (``MQTTDeviceLink/isTakenOver``).
  public var claim: String { "\(device)/claim" }

  /// The same topics for the pair's other device.
  public var counterpart: DeviceTopics {
    // The counterpart's address passes the same checks as this one's.
    (try? DeviceTopics(address: address.counterpart, prefix: prefix)) ?? self
  }

  /// Which of this device's topics `topic` is, or `nil` when it is none of them.
  public func kind(of topic: String) -> Kind? {
    let base = device + "/"
    guard topic.utf8.starts(with: base.utf8) else { return nil }
    return Kind(rawValue: String(decoding: topic.utf8.dropFirst(base.utf8.count), as: UTF8.self))
  }

  /// The client identifier of this device's persistent session: the same on every run, so the
  /// broker keeps what was queued for the device while it was away.
  public var clientIdentifier: String { device }

  /// Which frame kinds may arrive on a topic of `kind`; a frame on another topic is refused.
  static func accepts(_ frame: DeviceFrame.Kind, on kind: Kind) -> Bool {
    switch kind {
    case .presence: return false
    case .context: return frame == .context
    case .message: return frame == .message || frame == .reply
    case .transfer: return frame == .transfer
    case .ack: return frame == .transferAcknowledgement || frame == .contextAcknowledgement
    case .push: return frame == .push || frame == .deepLink
    case .routed: return frame == .reply
    }
  }

  /// The topic a frame of `kind` is published on.
  static func topicKind(for frame: DeviceFrame.Kind) -> Kind {
    switch frame {
    case .context: return .context
    // Pushes and deep links come from a device's control socket or its `push` topic, not its
    // counterpart: a session never sends them, and the counterpart's topics refuse them.
    case .message, .reply, .push, .deepLink: return .message
    case .transfer: return .transfer
    case .transferAcknowledgement, .contextAcknowledgement: return .ack
    }
  }
}
