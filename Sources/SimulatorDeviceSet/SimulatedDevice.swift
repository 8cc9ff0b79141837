import PropertyList
import WormholeVocabulary

/// One simulated device of a set: the `<UDID>/` directory and what its `device.plist` says.
///
/// `device.plist` holds, among keys that vary across Xcode versions, `UDID`, `name`, `runtime`
/// (``SimulatorRuntime``), `deviceType` (``SimulatorDeviceType``) and `state` (``DeviceState``).
/// A value missing or of another type is `nil` here and a note in the set; unknown keys are
/// ignored. A device whose `device.plist` is missing or damaged is still listed, by its UDID.
public struct SimulatedDevice: Sendable, Hashable {
  /// The device's UDID: its directory's name (as text; see ``DeviceSetNote/Kind/nameNotText``).
  public var udid: String
  /// The device's directory, with the set's path in front.
  public var directory: FileName
  /// The name the user gave the device ("iPhone 15 Pro", "Ana's Watch").
  public var name: String?
  public var runtime: SimulatorRuntime?
  public var deviceType: SimulatorDeviceType?
  public var state: DeviceState?
  /// Whether `device.plist` was read (and was a property list).
  public var hasDescription = false
  /// The device's application-group containers, sorted by identifier, then path.
  public var groups: [ApplicationGroupContainer] = []

  /// The name of the file that describes a device, in its directory.
  public static let descriptionFileName: FileName = "device.plist"

  /// The name for people: the device's name, else its UDID.
  public var displayName: String { name ?? udid }

  /// Takes the fields of `device.plist`'s top value; returns what did not fit, as note kinds.
  mutating func describe(with root: PropertyListValue) -> [DeviceSetNote.Kind] {
    guard case .dictionary = root else {
      return [.unexpectedValue(key: "the top value", expected: "a dictionary")]
    }
    hasDescription = true
    var problems: [DeviceSetNote.Kind] = []
    func text(_ key: String) -> String? {
      if case .string(let value)? = root[key] { return value }
      problems.append(.unexpectedValue(key: key, expected: "a string"))
      return nil
    }
    name = text("name")
    runtime = text("runtime").map(SimulatorRuntime.init(identifier:))
    deviceType = text("deviceType").map(SimulatorDeviceType.init(identifier:))
    if case .integer(let code)? = root["state"] {
      state = DeviceState(code: code)
    } else {
      problems.append(.unexpectedValue(key: "state", expected: "an integer"))
    }
    if let recorded = text("UDID"), !SimulatedDevice.sameUDID(recorded, udid) {
      problems.append(.mismatchedIdentifier(recorded: recorded))
    }
    return problems
  }

  /// Whether two UDIDs name the same device: UUIDs, compared without regard to ASCII case.
  static func sameUDID(_ first: String, _ second: String) -> Bool {
    first.utf8.count == second.utf8.count
      && zip(first.utf8, second.utf8).allSatisfy { asciiUppercased($0) == asciiUppercased($1) }
  }

  private static func asciiUppercased(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
  }
}
