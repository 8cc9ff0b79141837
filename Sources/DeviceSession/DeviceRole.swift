/// Which of a pair's two simulated devices: the iPhone or its Apple Watch.
public enum DeviceRole: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  case phone
  case watch

  /// The other device of the pair.
  public var counterpart: DeviceRole { self == .phone ? .watch : .phone }

  /// The role's name as the command line and the on-disk layout spell it (`phone`, `watch`).
  public var description: String { rawValue }

  /// The role's byte in a frame.
  var code: UInt8 { self == .phone ? 1 : 2 }

  init?(code: UInt8) {
    switch code {
    case 1: self = .phone
    case 2: self = .watch
    default: return nil
    }
  }
}
