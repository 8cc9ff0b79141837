import DeviceSession
import MQTTClient
import PeerSession

extension LocalPeer {
  /// A new peer `name` of `service` whose link is `broker` (``MQTTPeerLink``): it finds, and is
  /// found by, the peers of `service` on every machine that reaches the broker. Its control
  /// socket, journal and resources are under `home`, as a local peer's, so the `peer` verbs
  /// drive it from this machine. `keepAlive`, `heartbeat` and `outageLimit` are the link's
  /// (see ``MQTTPeerLink/init(local:service:home:broker:codec:keepAlive:heartbeat:outageLimit:prefix:)``).
  public convenience init(
    name: PeerName, service: ServiceType, home: String, broker: BrokerAddress, receiveQueueLimit: Int = 256,
    keepAlive: Int = MQTTDeviceLink.defaultKeepAlive, heartbeat: Duration? = nil, outageLimit: Duration? = nil
  ) throws(PeerError) {
    try self.init(name: name, service: service, home: home, receiveQueueLimit: receiveQueueLimit) {
      identity throws(LinkError) in
      try MQTTPeerLink(
        local: identity, service: service, home: home, broker: broker, keepAlive: keepAlive,
        heartbeat: heartbeat, outageLimit: outageLimit)
    }
  }
}
