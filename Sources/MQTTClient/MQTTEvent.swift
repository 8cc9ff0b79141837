/// What a client reports from its network thread, one at a time, in order.
public enum MQTTEvent: Sendable, Equatable {
  /// The broker accepted the connection (also after each reconnection): subscribe here.
  case connected
  /// The broker refused the connection (a bad client identifier, not authorized), in words.
  case refused(String)
  /// The connection ended (`reason` in words); the client reconnects by itself, with backoff,
  /// unless it was ``MQTTClient/disconnect()`` that ended it.
  case disconnected(reason: String)
  /// A message arrived on a subscribed topic.
  case received(MQTTMessage)
  /// A message arrived that the client refused before reading it: its topic was not UTF-8 or
  /// it was larger than the client's limit.
  case dropped(reason: String)
  /// The broker acknowledged the publication with this message identifier (QoS 1), or it was
  /// sent (QoS 0).
  case published(Int32)
}
