/// What a client reports from its network thread, one at a time, in order.
public enum MQTTEvent: Sendable, Equatable {
  /// The broker accepted the connection (also after each reconnection): subscribe here.
  case connected
  /// The broker refused the connection (a bad client identifier, bad credentials, not
  /// authorized), or, under MQTT 5, a publication or subscription (its ACL does not let this
  /// user use the topic: "the broker did not accept the publication on TOPIC: Not authorized
  /// (MQTT reason code 135; ...)"), in words. After a refused publication or subscription the
  /// connection stays up.
  case refused(String)
  /// The connection ended (`reason` in words); the client reconnects by itself, with backoff,
  /// unless it was ``MQTTClient/disconnect()`` that ended it.
  case disconnected(reason: String)
  /// A message arrived on a subscribed topic.
  case received(MQTTMessage)
  /// A message arrived that the client refused before reading it: its topic was not UTF-8 or
  /// it was larger than the client's limit. Never followed by ``received(_:)`` for it; counted
  /// in ``MQTTClient/droppedCount``.
  case dropped(reason: String)
  /// The broker acknowledged the publication with this message identifier (QoS 1), or it was
  /// sent (QoS 0). A publication the broker does not accept is ``refused(_:)`` instead.
  case published(Int32)
}
