/// One message from the broker, as the fleet's reducer takes it: its topic, its payload and
/// whether the broker held it retained (a dashboard that starts late gets the current state so).
/// Everything in it is hostile until ``FleetState/apply(_:at:)`` has checked it.
public struct FleetInput: Sendable, Hashable {
  public var topic: String
  public var payload: [UInt8]
  public var isRetained: Bool
  /// Set when the client refused the message before reading it (a topic that is not UTF-8, a
  /// payload above its limit): the reducer counts it as dropped, with this reason.
  public var refusal: String?

  public init(topic: String, payload: [UInt8], isRetained: Bool) {
    self.topic = topic
    self.payload = payload
    self.isRetained = isRetained
  }

  /// A message the client refused before reading it, and why.
  public static func refused(_ reason: String) -> FleetInput {
    var input = FleetInput(topic: "", payload: [], isRetained: false)
    input.refusal = reason
    return input
  }
}
