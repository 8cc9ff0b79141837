/// A simulated device's state, as the integer `state` of its `device.plist` records it.
///
/// CoreSimulator writes 0 while it creates a device, 1 when it is shut down, 2 while it boots,
/// 3 when it is booted and 4 while it shuts down; any other number is kept as ``other(_:)``.
public enum DeviceState: Sendable, Hashable {
  case creating
  case shutdown
  case booting
  case booted
  case shuttingDown
  /// A state number this reader does not know.
  case other(Int64)

  /// The state for CoreSimulator's number `code`.
  public init(code: Int64) {
    switch code {
    case 0: self = .creating
    case 1: self = .shutdown
    case 2: self = .booting
    case 3: self = .booted
    case 4: self = .shuttingDown
    default: self = .other(code)
    }
  }

  /// CoreSimulator's number for the state.
  public var code: Int64 {
    switch self {
    case .creating: return 0
    case .shutdown: return 1
    case .booting: return 2
    case .booted: return 3
    case .shuttingDown: return 4
    case .other(let code): return code
    }
  }

  /// The state in words: `creating`, `shutdown`, `booting`, `booted`, `shutting-down`, or
  /// `state N` for a number this reader does not know.
  public var name: String {
    switch self {
    case .creating: return "creating"
    case .shutdown: return "shutdown"
    case .booting: return "booting"
    case .booted: return "booted"
    case .shuttingDown: return "shutting-down"
    case .other(let code): return "state \(code)"
    }
  }

  /// Whether the device was running (booted) when the set was last written.
  public var isBooted: Bool { self == .booted }
}
