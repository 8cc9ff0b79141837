import Foundation
import SnapshotSupport
import TestSupport
import Testing
import WormholeVocabulary

@testable import SimulatorDeviceSet

/// The committed fixture sets: a realistic one with two pairs, and one with damaged files.
@Suite struct FixtureSetTests {
  static let phoneA = "0A1B2C3D-4E5F-4061-8273-94A5B6C7D8E9"
  static let watchA = "1B2C3D4E-5F60-4172-8384-A5B6C7D8E9FA"
  static let phoneB = "2C3D4E5F-6071-4283-9495-B6C7D8E9FA0B"
  static let watchB = "3D4E5F60-7182-4394-A5A6-C7D8E9FA0B1C"
  static let tablet = "4E5F6071-8293-44A5-B6B7-D8E9FA0B1C2D"
  static let pair1 = "5F607182-93A4-45B6-87C8-E9FA0B1C2D3E"
  static let pair2 = "60718293-A4B5-46C7-98D9-FA0B1C2D3E4F"

  let set = DeviceSet.read(at: fixtureSet("TwoPairs"))

  @Test func readsEveryDeviceSortedByName() {
    #expect(
      set.devices.map(\.displayName) == [
        "Ana's iPhone", "Ana's Watch", "iPad Pro (11-inch) (3rd generation)", "Old iPhone", Self.watchB,
      ])
  }

  @Test func readsABinaryDevicePlist() throws {
    let phone = try #require(set.device(udid: Self.phoneA))
    #expect(phone.hasDescription)
    #expect(phone.name == "Ana's iPhone")
    #expect(phone.runtime?.identifier == "com.apple.CoreSimulator.SimRuntime.iOS-17-2")
    #expect(phone.runtime?.displayName == "iOS 17.2")
    #expect(phone.deviceType?.identifier == "com.apple.CoreSimulator.SimDeviceType.iPhone-15-Pro")
    #expect(phone.deviceType?.displayName == "iPhone 15 Pro")
    #expect(phone.state == .booted)
    #expect(phone.directory == fixtureSet("TwoPairs").appending(FileName(Self.phoneA)))
  }

  @Test func readsAnXMLDevicePlist() throws {
    let watch = try #require(set.device(udid: Self.watchA))
    #expect(watch.name == "Ana's Watch")
    #expect(watch.runtime?.displayName == "watchOS 10.2")
    #expect(watch.runtime?.isWatchPlatform == true)
    #expect(watch.deviceType?.displayName == "Apple Watch Series 9 45mm")
    #expect(watch.state == .shutdown)
    let tablet = try #require(set.device(udid: Self.tablet))
    #expect(tablet.deviceType?.displayName == "iPad Pro (11 inch) (3rd generation)")
    #expect(tablet.state == .creating)
  }

  @Test func findsGroupContainersByTheirMetadataInBothFormats() throws {
    let phone = try #require(set.device(udid: Self.phoneA))
    #expect(phone.groups.map(\.identifier) == ["group.com.example.app", "group.com.example.shared"])
    let appGroups = fixtureSet("TwoPairs").appending(
      FileName(Self.phoneA + "/data/Containers/Shared/AppGroup"))
    #expect(
      phone.groups.map(\.path) == [
        appGroups.appending("71829304-B5C6-47D8-A9EA-0B1C2D3E4F50"),
        appGroups.appending("82930415-C6D7-48E9-BAFB-1C2D3E4F5061"),
      ])
    #expect(set.device(udid: Self.phoneB)?.groups == [])
    #expect(set.groups.count == 4)
  }

  @Test func aDeviceWithoutItsPlistIsListedWithItsGroupsAndOneNote() throws {
    let watch = try #require(set.device(udid: Self.watchB))
    #expect(!watch.hasDescription)
    #expect(watch.name == nil && watch.runtime == nil && watch.state == nil)
    #expect(watch.groups.map(\.identifier) == ["group.com.example.app"])
    #expect(
      set.notes == [
        DeviceSetNote(
          path: fixtureSet("TwoPairs").appending(FileName(Self.watchB + "/device.plist")),
          kind: .missingDevicePlist)
      ])
  }

  @Test func linksBothPairsToTheirDevices() throws {
    #expect(set.pairs.map(\.id) == [Self.pair1, Self.pair2])
    let first = set.pairs[0]
    #expect(first.isActive == true)
    #expect(first.phoneUDID == Self.phoneA && first.watchUDID == Self.watchA)
    #expect(first.phone?.name == "Ana's iPhone" && first.watch?.name == "Ana's Watch")
    let second = set.pairs[1]
    #expect(second.isActive == false)
    #expect(second.phone?.name == "Old iPhone")
    // The watch without device.plist is still the pair's watch.
    #expect(second.watch?.udid == Self.watchB)
  }

  @Test func readsTheDefaultDevicesAndIgnoresTheirVersion() {
    #expect(set.defaultDevices.map(\.udid) == [Self.tablet, Self.phoneA])
    #expect(
      set.defaultDevices.map(\.deviceType.displayName) == [
        "iPad Pro (11 inch) (3rd generation)", "iPhone 15 Pro",
      ])
  }

  @Test func jsonIsStable() throws {
    let json = set.json()
    // Well-formed, whatever the golden file says.
    _ = try JSONSerialization.jsonObject(with: Data(json.utf8))
    let portable = json.replacingOccurrences(of: fixturesDirectory, with: "$FIXTURES")
    expectSnapshot(portable + "\n", named: "two-pairs.json", in: snapshotDirectory())
  }

  @Test func textNamesDevicesRuntimesStatesPairsAndGroups() {
    let text = set.text().replacingOccurrences(of: fixturesDirectory, with: "$FIXTURES")
    expectSnapshot(text, named: "two-pairs.txt", in: snapshotDirectory())
  }

  @Test func callersAddMailboxesUnderEachGroup() throws {
    let text = set.text { device, group in
      device.udid == Self.phoneA && group.identifier == "group.com.example.app" ? ["mailbox greeting"] : []
    }
    let lines = text.split(separator: "\n").map(String.init)
    let index = try #require(lines.firstIndex { $0.hasPrefix("    group group.com.example.app") })
    #expect(lines[index + 1] == "      mailbox greeting")
    let json = set.json { _, group in
      [("mailboxes", group.identifier == "group.com.example.shared" ? "[1]" : "[]")]
    }
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let devices = try #require(object["devices"] as? [[String: Any]])
    let groups = devices.flatMap { ($0["groups"] as? [[String: Any]]) ?? [] }
    #expect(groups.map { ($0["mailboxes"] as? [Int]) ?? [-1] } == [[], [1], [], []])
  }

  @Test func theDamagedSetIsReadAsFarAsItGoes() throws {
    let root = fixtureSet("Damaged")
    let damaged = DeviceSet.read(at: root)
    let watchAppGroups = Self.watchA + "/data/Containers/Shared/AppGroup/"
    let kinds = damaged.notes.map { note in
      (String(note.path.lossyText.dropFirst(root.lossyText.count + 1)), note.kind.code)
    }
    #expect(
      kinds.map(\.0) == [
        "device_set.plist",
        Self.phoneA + "/device.plist",
        Self.watchA + "/device.plist", Self.watchA + "/device.plist", Self.watchA + "/device.plist",
        watchAppGroups
          + "93041526-D7E8-49FA-CB0C-2D3E4F506172/.com.apple.mobile_container_manager.metadata.plist",
        watchAppGroups
          + "A4152637-E8F9-4A0B-DC1D-3E4F50617283/.com.apple.mobile_container_manager.metadata.plist",
      ])
    #expect(
      kinds.map(\.1) == [
        "damaged_property_list", "damaged_property_list", "unexpected_value", "unexpected_value",
        "mismatched_identifier", "missing_container_metadata", "unexpected_value",
      ])
    #expect(damaged.notes[3].kind == .unexpectedValue(key: "state", expected: "an integer"))
    #expect(damaged.notes[4].kind == .mismatchedIdentifier(recorded: Self.phoneB))
    #expect(damaged.pairs.isEmpty)
    let watch = try #require(damaged.device(udid: Self.watchA))
    #expect(watch.name == "Half a Watch" && watch.runtime == nil && watch.state == nil)
    #expect(watch.groups.isEmpty)
    #expect(damaged.device(udid: Self.phoneA)?.hasDescription == false)
  }
}
