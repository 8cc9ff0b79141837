/// A message as published or received: its topic, its bytes and how it travels.
public struct MQTTMessage: Sendable, Equatable {
  public var topic: String
  public var payload: [UInt8]
  public var quality: MQTTQuality
  /// Whether the broker keeps it as the topic's last message, for clients that subscribe later.
  /// On a received message: it is such a kept message, not a live one.
  public var isRetained: Bool

  public init(topic: String, payload: [UInt8], quality: MQTTQuality = .atMostOnce, isRetained: Bool = false) {
    self.topic = topic
    self.payload = payload
    self.quality = quality
    self.isRetained = isRetained
  }
}
