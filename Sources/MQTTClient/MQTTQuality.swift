/// An MQTT quality of service: how hard the broker tries to deliver a message.
public enum MQTTQuality: Int32, Sendable, CaseIterable {
  /// QoS 0: sent once, lost if a connection drops; never queued for a client that is away.
  case atMostOnce = 0
  /// QoS 1: acknowledged, sent again until it is; may arrive twice; queued for a persistent
  /// session that is away.
  case atLeastOnce = 1
}
