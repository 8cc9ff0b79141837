import TestSupport
import Testing

@testable import SimulatorDeviceSet

/// Readable names for runtimes, device types and states, from identifiers of any shape.
@Suite struct NamingTests {
  @Test(
    arguments: [
      ("com.apple.CoreSimulator.SimRuntime.iOS-17-2", "iOS 17.2", "iOS", "17.2"),
      ("com.apple.CoreSimulator.SimRuntime.watchOS-10-2", "watchOS 10.2", "watchOS", "10.2"),
      ("com.apple.CoreSimulator.SimRuntime.tvOS-17-0", "tvOS 17.0", "tvOS", "17.0"),
      ("com.apple.CoreSimulator.SimRuntime.xrOS-1-0", "visionOS 1.0", "visionOS", "1.0"),
      ("com.apple.CoreSimulator.SimRuntime.iOS-18-0-beta-2", "iOS 18.0 beta 2", "iOS", "18.0"),
      ("com.apple.CoreSimulator.SimRuntime.iOS", "iOS", "iOS", nil),
    ] as [(String, String, String, String?)])
  func runtimes(identifier: String, name: String, platform: String, version: String?) {
    let runtime = SimulatorRuntime(identifier: identifier)
    #expect(runtime.displayName == name)
    #expect(runtime.platform == platform)
    #expect(runtime.version == version)
    #expect(runtime.identifier == identifier)
  }

  @Test(arguments: [
    "", "iOS 17.2", "com.apple.CoreSimulator.SimRuntime.", "com.apple.CoreSimulator.SimRuntime.---",
  ])
  func runtimesOfAnotherShapeAreTheirIdentifier(identifier: String) {
    let runtime = SimulatorRuntime(identifier: identifier)
    #expect(runtime.displayName == identifier)
    #expect(runtime.platform == nil && !runtime.isPhonePlatform && !runtime.isWatchPlatform)
  }

  @Test(arguments: [
    ("com.apple.CoreSimulator.SimDeviceType.iPhone-15", "iPhone 15"),
    ("com.apple.CoreSimulator.SimDeviceType.iPhone-15-Pro-Max", "iPhone 15 Pro Max"),
    ("com.apple.CoreSimulator.SimDeviceType.Apple-Watch-Series-9-45mm", "Apple Watch Series 9 45mm"),
    ("com.apple.CoreSimulator.SimDeviceType.iPod-touch--7th-generation-", "iPod touch (7th generation)"),
    ("com.apple.CoreSimulator.SimDeviceType.iPhone-SE--3rd-generation-", "iPhone SE (3rd generation)"),
    (
      "com.apple.CoreSimulator.SimDeviceType.iPad-Pro--11-inch---3rd-generation-",
      "iPad Pro (11 inch) (3rd generation)"
    ),
    ("com.apple.CoreSimulator.SimDeviceType.", "com.apple.CoreSimulator.SimDeviceType."),
    ("com.apple.CoreSimulator.SimDeviceType.-", ""),
    ("iPhone-15", "iPhone-15"),
  ])
  func deviceTypes(identifier: String, name: String) {
    #expect(SimulatorDeviceType(identifier: identifier).displayName == name)
  }

  @Test func statesRoundTripTheirCodes() {
    let names = (-1...5).map { DeviceState(code: Int64($0)).name }
    #expect(names == ["state -1", "creating", "shutdown", "booting", "booted", "shutting-down", "state 5"])
    #expect((-1...5).allSatisfy { DeviceState(code: Int64($0)).code == Int64($0) })
    #expect(DeviceState(code: 3).isBooted && !DeviceState(code: 1).isBooted)
  }

  @Test func everyNoteKindHasADistinctCode() {
    let kinds: [DeviceSetNote.Kind] = [
      .missingDeviceSetPlist, .missingDevicePlist, .missingContainerMetadata,
      .damagedPropertyList(reason: "r"),
      .unexpectedValue(key: "k", expected: "e"), .absentPairedDevice(pair: "p", role: "phone", udid: "u"),
      .unexpectedPairedPlatform(pair: "p", role: "watch", runtime: "iOS 17.2"),
      .mismatchedIdentifier(recorded: "r"),
      .unreadable(reason: "r"), .symbolicLink, .fileTooLarge(size: 2, limit: 1), .tooManyEntries(limit: 1),
      .tooManyEntriesInAll(limit: 1), .tooManyBytesInAll(limit: 1),
      .nameNotText,
    ]
    #expect(Set(kinds.map(\.code)).count == kinds.count)
    #expect(kinds.allSatisfy { !$0.message.isEmpty })
  }
}
