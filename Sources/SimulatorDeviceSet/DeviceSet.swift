import WormholeVocabulary

/// A CoreSimulator device set, read from disk into plain values: the `Devices` folder of a Mac's
/// `~/Library/Developer/CoreSimulator`, copied or mounted (read-only is enough).
///
/// ```
/// Devices/
///   device_set.plist                  DevicePairs: pair UUID -> {companion, gizmo, active}
///                                     DefaultDevices: runtime -> device type -> UDID
///   <UDID>/device.plist               UDID, name, runtime, deviceType, state
///   <UDID>/data/Containers/Shared/AppGroup/<UUID>/
///       .com.apple.mobile_container_manager.metadata.plist   MCMMetadataIdentifier: the group
/// ```
///
/// Property lists may be binary or XML. Reading never fails and never writes: whatever is missing,
/// damaged, too large or a symbolic link becomes a ``DeviceSetNote`` and the rest is still read.
///
/// ```swift
/// let set = DeviceSet.read(at: "/Volumes/Mac/Users/ana/Library/Developer/CoreSimulator/Devices")
/// for device in set.devices { print(device.displayName, device.runtime?.displayName ?? "?") }
/// print(set.text())
/// ```
public struct DeviceSet: Sendable, Hashable {
  /// The set's directory, as given.
  public var path: FileName
  /// The devices: those with a name sorted by it (without regard to case), then the others by UDID.
  public var devices: [SimulatedDevice] = []
  /// The pairs, sorted by id, each with its devices when the set holds them.
  public var pairs: [DevicePair] = []
  /// The devices CoreSimulator made by default, sorted by runtime, then device type.
  public var defaultDevices: [DefaultDevice] = []
  /// What could not be read, in the order the set was walked (sorted by name at each level).
  public var notes: [DeviceSetNote] = []

  /// Notes that `path` could not be read, and why: a caller that shows the set adds what it read
  /// beyond the reader, such as a group container's directory that could not be watched.
  public mutating func noteUnreadable(_ path: FileName, reason: String) {
    notes.append(DeviceSetNote(path: path, kind: .unreadable(reason: reason)))
  }

  /// The name of the file that holds a set's pairs, at its top.
  public static let pairsFileName: FileName = "device_set.plist"

  /// Reads the device set at `path`, within `limits`. Never fails: see ``notes``.
  public static func read(at path: FileName, limits: DeviceSetLimits = .standard) -> DeviceSet {
    var reader = DeviceSetReader(root: path, limits: limits)
    return reader.read()
  }

  /// The device whose UDID is `udid` (compared without regard to ASCII case), if the set holds it.
  public func device(udid: String) -> SimulatedDevice? {
    devices.first { SimulatedDevice.sameUDID($0.udid, udid) }
  }

  /// Every application-group container of every device, with its device, in device order.
  public var groups: [(device: SimulatedDevice, group: ApplicationGroupContainer)] {
    devices.flatMap { device in device.groups.map { (device, $0) } }
  }
}
