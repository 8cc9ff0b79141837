/// One message from the broker, as the fleet's reducer takes it: its topic, its payload and
/// whether the broker held it retained (a dashboard that starts late gets the current state so).
/// Everything in it is hostile until ``FleetState/apply(_:at:)`` has checked it.
public struct FleetInput: Sendable, Hashable {
  public var topic: String
  public var payload: [UInt8]
  public var isRetained: Bool

  public init(topic: String, payload: [UInt8], isRetained: Bool) {
    self.topic = topic
    self.payload = payload
    self.isRetained = isRetained
  }
}
