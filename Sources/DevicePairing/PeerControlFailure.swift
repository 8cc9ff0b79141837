/// Why a control request failed: the exit code the verb ends with (2 or 3) and the message.
public struct PeerControlFailure: Error, Sendable, Equatable {
  public var code: Int
  public var message: String
  public init(_ code: Int, _ message: String) {
    self.code = code
    self.message = message
  }
}
