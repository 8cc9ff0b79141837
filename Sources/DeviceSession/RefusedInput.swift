/// Input a device's link refused without knowing who sent it (``LinkEvent/refusedInput(_:)``):
/// a message from a broker that was too large for the link or not UTF-8 where text is asked,
/// that is not a frame (or not a presence), or that came on a topic the counterpart does not
/// publish on (its `push` topic, this device's claim), which anyone who can publish on the
/// pair's topics may have sent; or bytes on a local connection not known to be the
/// counterpart's running device. Said as what it is, not as the counterpart's.
public struct RefusedInput: Sendable, Equatable, CustomStringConvertible {
  /// What arrived, and where, in words: `a message on TOPIC`, `a message from the broker`,
  /// `bytes on this device's link socket from process PID ...` (raw text: escape it to show it
  /// on a terminal; a topic is already quoted when it is not one plain word).
  public var origin: String
  /// Why it was refused, in words (raw text).
  public var reason: String

  public init(_ origin: String, reason: String) {
    self.origin = origin
    self.reason = reason
  }

  public var description: String { "\(origin) was refused: \(reason) (its sender is unknown)" }
}
