/// Why what carries a device's link refused the device itself, not anything its counterpart
/// sent (``LinkEvent/denied(_:)``): a broker whose ACL does not accept one of its publications,
/// or another run of the device's role that took its place.
public struct LinkDenial: Sendable, Equatable, CustomStringConvertible {
  /// What happened to the link.
  public enum Kind: String, Sendable, Equatable {
    /// Another device of this role (the same pair, on another machine or home) took the link's
    /// place: the link no longer connects, until the device is started again.
    case takenOver
    /// Something this device sent was refused (a broker's ACL); the link runs on.
    case refused
  }

  public var kind: Kind
  /// What carries the link said, in its words (raw text: escape it to show it on a terminal).
  public var reason: String

  public init(_ kind: Kind, reason: String) {
    self.kind = kind
    self.reason = reason
  }

  /// Whether the link stays denied (taken over) rather than refused once.
  public var isLasting: Bool { kind == .takenOver }

  /// `taken over` or `refused`, as a status shows it.
  public var kindText: String {
    switch kind {
    case .takenOver: return "taken over"
    case .refused: return "refused"
    }
  }

  public var description: String {
    switch kind {
    case .takenOver: return "this device was taken over: \(reason)"
    case .refused: return "this device's link was refused: \(reason)"
    }
  }
}
