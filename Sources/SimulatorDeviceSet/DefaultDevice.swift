/// One of the devices CoreSimulator created by default for a runtime, as `device_set.plist`'s
/// `DefaultDevices` records them (runtime identifier to device-type identifier to UDID).
public struct DefaultDevice: Sendable, Hashable {
  public var runtime: SimulatorRuntime
  public var deviceType: SimulatorDeviceType
  public var udid: String
}
