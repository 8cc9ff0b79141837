import Foundation
import Glibc
import PropertyList
import TestSupport
import Testing
import WormholeVocabulary

@testable import SimulatorDeviceSet

/// Sets built at test time: every kind of note, links, special files, names that are not UTF-8
/// or that hold terminal escapes, and the limits.
@Suite struct HostileSetTests {
  static let phone = "AAAAAAAA-0000-4000-8000-000000000001"
  static let watch = "AAAAAAAA-0000-4000-8000-000000000002"
  static let pair = "BBBBBBBB-0000-4000-8000-000000000001"

  /// A phone and a watch, paired, each with one group.
  func pairedSet(binary: Bool = true) -> DeviceSetBuilder {
    let builder = DeviceSetBuilder()
    builder.plist(
      "device_set.plist", DeviceSetBuilder.pairs([(Self.pair, Self.phone, Self.watch, true)]), binary: binary)
    builder.plist(
      FileName(Self.phone + "/device.plist"), DeviceSetBuilder.device(udid: Self.phone, name: "Phone"),
      binary: binary)
    builder.plist(
      FileName(Self.watch + "/device.plist"),
      DeviceSetBuilder.device(
        udid: Self.watch, name: "Watch", runtime: "watchOS-10-2", type: "Apple-Watch-Ultra-2-49mm"),
      binary: !binary)
    builder.plist(
      DeviceSetBuilder.metadataPath(Self.phone, "C1"), DeviceSetBuilder.metadata("group.a"), binary: binary)
    builder.plist(
      DeviceSetBuilder.metadataPath(Self.watch, "C2"), DeviceSetBuilder.metadata("group.a"), binary: binary)
    return builder
  }

  func codes(_ set: DeviceSet, relativeTo root: FileName) -> [String] {
    set.notes.map { note in
      let path = note.path == root ? "." : String(note.path.lossyText.dropFirst(root.lossyText.count + 1))
      return path + " " + note.kind.code
    }
  }

  @Test(arguments: [true, false]) func aCleanSetHasNoNotes(binary: Bool) {
    let builder = pairedSet(binary: binary)
    let set = DeviceSet.read(at: builder.root)
    #expect(set.notes == [])
    #expect(set.devices.map(\.name) == ["Phone", "Watch"])
    #expect(set.pairs.first?.phone?.name == "Phone" && set.pairs.first?.watch?.name == "Watch")
    #expect(set.groups.map(\.group.identifier) == ["group.a", "group.a"])
  }

  @Test func aMissingDeviceSetPlistIsANoteAndDevicesAreStillRead() {
    let builder = DeviceSetBuilder()
    builder.plist(
      FileName(Self.phone + "/device.plist"), DeviceSetBuilder.device(udid: Self.phone, name: "P"),
      binary: true)
    let set = DeviceSet.read(at: builder.root)
    #expect(codes(set, relativeTo: builder.root) == ["device_set.plist missing_device_set_plist"])
    #expect(set.devices.map(\.name) == ["P"])
    #expect(set.notes.first?.kind.message == "no device_set.plist, so no pairs are known")
  }

  @Test func aPairNamingAnAbsentDeviceIsANoteAndThePairIsKept() {
    let builder = pairedSet()
    let absent = "CCCCCCCC-0000-4000-8000-000000000009"
    builder.plist(
      "device_set.plist",
      DeviceSetBuilder.pairs([(Self.pair, Self.phone, Self.watch, true), ("P2", absent, Self.watch, false)]),
      binary: false)
    let set = DeviceSet.read(at: builder.root)
    #expect(set.notes.map(\.kind) == [.absentPairedDevice(pair: "P2", role: "phone", udid: absent)])
    #expect(set.pairs.map(\.id) == [Self.pair, "P2"])
    #expect(set.pairs[1].phone == nil && set.pairs[1].watch?.name == "Watch")
    #expect(
      DeviceSet.line(set.pairs[1]) == "P2 inactive: phone \(absent) (absent), watch \(Self.watch) Watch")
  }

  @Test func pairsMatchUDIDsWithoutRegardToCase() {
    let builder = pairedSet()
    builder.plist(
      "device_set.plist", DeviceSetBuilder.pairs([(Self.pair, Self.phone.lowercased(), Self.watch, true)]),
      binary: true)
    let set = DeviceSet.read(at: builder.root)
    #expect(set.notes == [])
    #expect(set.pairs.first?.phone?.udid == Self.phone)
  }

  @Test func aPairWhoseWatchIsAPhoneIsANote() {
    let builder = pairedSet()
    builder.plist(
      "device_set.plist", DeviceSetBuilder.pairs([(Self.pair, Self.phone, Self.phone, true)]), binary: true)
    let set = DeviceSet.read(at: builder.root)
    #expect(
      set.notes.map(\.kind) == [
        .unexpectedPairedPlatform(pair: Self.pair, role: "watch", runtime: "iOS 17.2")
      ])
  }

  @Test func unknownKeysAndOtherShapesOfPairsAreKeptOrIgnored() {
    let builder = pairedSet()
    builder.plist(
      "device_set.plist",
      .dictionary([
        "DevicePairs": .dictionary([
          PropertyListEntry(
            key: Self.pair,
            value: .dictionary([
              "active": .integer(1), "companion": .string(Self.phone), "gizmo": .string(Self.watch),
              "pairingVersion": .array([.integer(2), .dictionary(["x": .string("y")])]),
            ])),
          // No `active`: the set does not say; no `gizmo`: a note.
          PropertyListEntry(key: "P2", value: .dictionary(["companion": .string(Self.phone)])),
          PropertyListEntry(key: "P3", value: .string("not a pair")),
        ]),
        "DefaultDevices": .dictionary(["version": .integer(0), "odd": .array([])]),
        "SomethingNew": .dictionary(["nested": .array([.boolean(true)])]),
      ]), binary: true)
    builder.plist(
      FileName(Self.phone + "/device.plist"),
      .dictionary([
        "UDID": .string(Self.phone), "name": .string("Phone"), "runtime": .string("iOS-99"),
        "deviceType": .string("something.else"), "state": .integer(17),
        "preferences": .dictionary(["a": .array([.integer(1)])]),
      ]), binary: false)
    let set = DeviceSet.read(at: builder.root)
    #expect(
      set.notes.map(\.kind) == [
        .unexpectedValue(key: "DevicePairs.P2.gizmo", expected: "a string"),
        .unexpectedValue(key: "DevicePairs.P3", expected: "a dictionary"),
      ])
    #expect(set.pairs.map(\.isActive) == [true, nil, nil])
    let phone = set.device(udid: Self.phone)
    #expect(phone?.state == .other(17) && phone?.state?.name == "state 17")
    #expect(phone?.runtime?.displayName == "iOS-99" && phone?.deviceType?.displayName == "something.else")
  }
}
