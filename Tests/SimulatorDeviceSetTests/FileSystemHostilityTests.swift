import Foundation
import Glibc
import PropertyList
import TestSupport
import Testing
import WormholeVocabulary

@testable import SimulatorDeviceSet

/// Links, special files, unreadable pieces, names that are not text or hold escapes, and limits.
@Suite struct FileSystemHostilityTests {
  static let phone = "AAAAAAAA-0000-4000-8000-000000000001"
  static let other = "AAAAAAAA-0000-4000-8000-000000000003"

  func phoneSet() -> DeviceSetBuilder {
    let builder = DeviceSetBuilder()
    builder.plist("device_set.plist", .dictionary([:]), binary: true)
    builder.plist(
      FileName(Self.phone + "/device.plist"), DeviceSetBuilder.device(udid: Self.phone, name: "P"),
      binary: true)
    return builder
  }

  func codes(_ set: DeviceSet, relativeTo root: FileName) -> [String] {
    set.notes.map { note in
      let path = note.path == root ? "." : String(note.path.lossyText.dropFirst(root.lossyText.count + 1))
      return path + " " + note.kind.code
    }
  }

  @Test func symbolicLinksAreNotesAndNeverFollowed() {
    let outside = DeviceSetBuilder()
    outside.plist(
      FileName(Self.other + "/device.plist"), DeviceSetBuilder.device(udid: Self.other, name: "Outside"),
      binary: true)
    outside.plist(
      DeviceSetBuilder.metadataPath(Self.other, "C9"), DeviceSetBuilder.metadata("group.outside"),
      binary: true)
    let builder = phoneSet()
    // A device directory, a group directory, a container, a metadata file and a device.plist
    // that all lead out of the set, and a loop.
    builder.link(FileName(Self.other), to: outside.path(FileName(Self.other)).lossyText)
    let linked = "BBBBBBBB-0000-4000-8000-000000000004"
    builder.plist(
      FileName(linked + "/device.plist"), DeviceSetBuilder.device(udid: linked, name: "L"), binary: true)
    builder.link(FileName(linked + "/data"), to: outside.path(FileName(Self.other + "/data")).lossyText)
    builder.link(
      DeviceSetBuilder.container(Self.phone, "C1"),
      to: outside.path(DeviceSetBuilder.container(Self.other, "C9")).lossyText)
    builder.directory(DeviceSetBuilder.container(Self.phone, "C2"))
    builder.link(
      DeviceSetBuilder.metadataPath(Self.phone, "C2"),
      to: outside.path(DeviceSetBuilder.metadataPath(Self.other, "C9")).lossyText)
    builder.link(DeviceSetBuilder.container(Self.phone, "C3"), to: "C3")
    let ownPlist = "BBBBBBBB-0000-4000-8000-000000000005"
    builder.link(
      FileName(ownPlist + "/device.plist"), to: outside.path(FileName(Self.other + "/device.plist")).lossyText
    )
    let set = DeviceSet.read(at: builder.root)
    let groups = Self.phone + "/data/Containers/Shared/AppGroup/"
    #expect(
      codes(set, relativeTo: builder.root) == [
        groups + "C1 symbolic_link",
        groups + "C2/.com.apple.mobile_container_manager.metadata.plist symbolic_link",
        groups + "C3 symbolic_link",
        Self.other + " symbolic_link",
        linked + "/data symbolic_link",
        ownPlist + "/device.plist symbolic_link",
      ])
    #expect(!set.devices.contains { $0.name == "Outside" })
    #expect(set.groups.isEmpty)
    #expect(set.devices.count == 3)
  }

  @Test func specialFilesAreRefusedWithoutBlocking() {
    let builder = phoneSet()
    let fifo = "BBBBBBBB-0000-4000-8000-000000000006"
    builder.fifo(FileName(fifo + "/device.plist"))
    builder.directory(
      FileName(
        Self.phone + "/data/Containers/Shared/AppGroup/C1/.com.apple.mobile_container_manager.metadata.plist")
    )
    let set = DeviceSet.read(at: builder.root)
    let groups = Self.phone + "/data/Containers/Shared/AppGroup/"
    #expect(
      codes(set, relativeTo: builder.root) == [
        groups + "C1/.com.apple.mobile_container_manager.metadata.plist unreadable",
        fifo + "/device.plist unreadable",
      ])
    #expect(
      set.notes.map(\.kind.message) == [
        "could not be read: it is not a regular file", "could not be read: it is not a regular file",
      ])
  }

  @Test func aMissingOrNonDirectorySetIsOneNote() {
    let builder = DeviceSetBuilder()
    let missing = builder.root.appending("nowhere")
    #expect(
      DeviceSet.read(at: missing).notes == [
        DeviceSetNote(path: missing, kind: .unreadable(reason: "the device set directory: it does not exist"))
      ])
    builder.file("plain", [1, 2, 3])
    let plain = DeviceSet.read(at: builder.path("plain"))
    #expect(
      plain.notes.map(\.kind) == [.unreadable(reason: "the device set directory: it is not a directory")])
    #expect(plain.devices.isEmpty && plain.pairs.isEmpty)
  }

  @Test func aGroupDirectoryThatIsAFileIsANote() {
    let builder = phoneSet()
    builder.file(FileName(Self.phone + "/data/Containers/Shared/AppGroup"), Array("oops".utf8))
    let set = DeviceSet.read(at: builder.root)
    #expect(
      codes(set, relativeTo: builder.root) == [Self.phone + "/data/Containers/Shared/AppGroup unreadable"])
    #expect(set.notes.first?.kind.message == "could not be read: it is not a directory")
  }

  @Test(.enabled(if: getuid() != 0, "root reads every directory whatever its mode"))
  func anUnreadableDeviceIsListedWithANote() {
    let builder = phoneSet()
    builder.permissions(FileName(Self.phone), 0)
    defer { builder.permissions(FileName(Self.phone), 0o755) }
    let set = DeviceSet.read(at: builder.root)
    #expect(codes(set, relativeTo: builder.root) == [Self.phone + " unreadable"])
    #expect(set.devices.map(\.udid) == [Self.phone])
  }

  @Test func namesThatAreNotUTF8AreReadAndShownEscaped() throws {
    let builder = phoneSet()
    let device = FileName(bytes: Array("DEVICE-".utf8) + [0xFF, 0xFE])
    builder.plist(
      device.appending("device.plist"), DeviceSetBuilder.device(udid: "X", name: "Odd"), binary: true)
    let container = FileName(bytes: Array("C".utf8) + [0xC3, 0x28])
    builder.plist(
      FileName(Self.phone + "/data/Containers/Shared/AppGroup").appending(container)
        .appending(".com.apple.mobile_container_manager.metadata.plist"),
      DeviceSetBuilder.metadata("group.bytes"), binary: false)
    let set = DeviceSet.read(at: builder.root)
    #expect(
      codes(set, relativeTo: builder.root) == [
        "DEVICE-\\x{ff}\\x{fe} name_not_text", "DEVICE-\\x{ff}\\x{fe}/device.plist mismatched_identifier",
      ])
    let odd = try #require(set.devices.first { $0.name == "Odd" })
    #expect(odd.directory == builder.root.appending(device))
    #expect(odd.udid == "DEVICE-\\x{ff}\\x{fe}")
    let group = try #require(set.device(udid: Self.phone)?.groups.first)
    #expect(group.path.bytes.suffix(3) == [UInt8(ascii: "C"), 0xC3, 0x28])
    let json = set.json()
    _ = try JSONSerialization.jsonObject(with: Data(json.utf8))
    #expect(json.contains("\"path_bytes\":\"" + hex(group.path.bytes) + "\""))
    #expect(set.text().contains("C\\x{c3}("))
  }

  @Test func escapesInNamesNeverReachTheTerminal() throws {
    let builder = DeviceSetBuilder()
    let hostile = "\u{1B}[2J\u{1B}]0;owned\u{07}Evil\nLine\u{202E}txt.exe"
    builder.plist(
      "device_set.plist",
      DeviceSetBuilder.pairs([("PAIR\u{1B}[31m", Self.phone, "GONE\u{1B}[1m", true)]), binary: true)
    builder.plist(
      FileName(Self.phone + "/device.plist"),
      DeviceSetBuilder.device(
        udid: Self.phone, name: hostile, runtime: "iOS-17-2\u{1B}[5m", type: "X\u{9B}31m"),
      binary: true)
    builder.plist(
      DeviceSetBuilder.metadataPath(Self.phone, "C\u{1B}[7m"),
      DeviceSetBuilder.metadata("group.\u{1B}[8m\u{2028}x"),
      binary: true)
    let set = DeviceSet.read(at: builder.root)
    #expect(set.device(udid: Self.phone)?.name == hostile)
    let text = set.text()
    let forbidden = text.unicodeScalars.filter { scalar in
      scalar != "\n"
        && (scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) || scalar == "\u{202E}"
          || scalar == "\u{2028}")
    }
    #expect(forbidden.isEmpty, "raw controls in \(text.debugDescription)")
    // One line per item: the heading, Devices:, the device, its group, Pairs:, the pair, Notes:, the note.
    #expect(text.split(separator: "\n").count == 8)
    #expect(text.contains("\\u{1b}[2J"))
    let json = set.json()
    #expect(!json.unicodeScalars.contains { $0.value < 0x20 })
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let devices = try #require(object["devices"] as? [[String: Any]])
    #expect(devices.first?["name"] as? String == hostile)
  }

  @Test func crowdedDirectoriesStopAtTheLimit() {
    // Every entry is a device, so whichever the system lists first, the counts hold.
    let builder = DeviceSetBuilder()
    for index in 1...3 {
      let udid = "AAAAAAAA-0000-4000-8000-00000000000\(index)"
      builder.plist(
        FileName(udid + "/device.plist"), DeviceSetBuilder.device(udid: udid, name: "D\(index)"), binary: true
      )
    }
    let limits = DeviceSetLimits(maximumFileSize: 4096, maximumEntries: 2)
    let crowded = DeviceSet.read(at: builder.root, limits: limits)
    #expect(crowded.devices.count == 2)
    #expect(
      crowded.notes == [
        DeviceSetNote(path: builder.path("device_set.plist"), kind: .missingDeviceSetPlist),
        DeviceSetNote(path: builder.root, kind: .tooManyEntries(limit: 2)),
      ])
    #expect(
      DeviceSet.read(at: builder.root, limits: DeviceSetLimits(maximumFileSize: 4096, maximumEntries: 3))
        .devices.count == 3)
  }

  @Test func crowdedGroupDirectoriesStopAtTheLimit() {
    // The set holds exactly two entries (device_set.plist and the phone): at the limit, not over.
    let builder = phoneSet()
    for container in ["C1", "C2", "C3"] {
      builder.plist(
        DeviceSetBuilder.metadataPath(Self.phone, FileName(container)), DeviceSetBuilder.metadata(container),
        binary: true)
    }
    let set = DeviceSet.read(
      at: builder.root, limits: DeviceSetLimits(maximumFileSize: 4096, maximumEntries: 2))
    #expect(set.device(udid: Self.phone)?.groups.count == 2)
    #expect(
      codes(set, relativeTo: builder.root) == [
        Self.phone + "/data/Containers/Shared/AppGroup too_many_entries"
      ])
  }

  @Test func theWholeSetHasAnEntryBudget() {
    // The set lists device_set.plist and the phone (2); the phone's AppGroup holds 3 more.
    let builder = phoneSet()
    for container in ["C1", "C2", "C3"] {
      builder.plist(
        DeviceSetBuilder.metadataPath(Self.phone, FileName(container)), DeviceSetBuilder.metadata(container),
        binary: true)
    }
    let limits = DeviceSetLimits(maximumFileSize: 4096, maximumEntries: 10, maximumTotalEntries: 4)
    let set = DeviceSet.read(at: builder.root, limits: limits)
    #expect(set.device(udid: Self.phone)?.groups.count == 2)
    #expect(
      codes(set, relativeTo: builder.root) == [
        Self.phone + "/data/Containers/Shared/AppGroup too_many_entries_in_all"
      ])
    let enough = DeviceSetLimits(maximumFileSize: 4096, maximumEntries: 10, maximumTotalEntries: 5)
    #expect(DeviceSet.read(at: builder.root, limits: enough).notes == [])
  }

  @Test func theWholeSetHasAByteBudgetNotedOnce() throws {
    let builder = phoneSet()
    let other = "AAAAAAAA-0000-4000-8000-000000000002"
    builder.plist(
      FileName(other + "/device.plist"), DeviceSetBuilder.device(udid: other, name: "Q"), binary: true)
    let setBytes = try BinaryPropertyListWriter().bytes(for: .dictionary([:])).count
    let deviceBytes = try BinaryPropertyListWriter().bytes(
      for: DeviceSetBuilder.device(udid: Self.phone, name: "P")
    ).count
    // Enough for device_set.plist and one device.plist, not for the second.
    let limits = DeviceSetLimits(
      maximumFileSize: 4096, maximumEntries: 10, maximumTotalBytes: setBytes + deviceBytes + 5)
    let set = DeviceSet.read(at: builder.root, limits: limits)
    #expect(codes(set, relativeTo: builder.root) == [other + "/device.plist too_many_bytes_in_all"])
    #expect(set.devices.map(\.name) == ["P", nil])
  }

  @Test func aLargeFileIsLeftUnread() {
    let builder = phoneSet()
    builder.file("device_set.plist", Array(repeating: UInt8(ascii: " "), count: 5000))
    let set = DeviceSet.read(
      at: builder.root, limits: DeviceSetLimits(maximumFileSize: 4096, maximumEntries: 10))
    #expect(
      set.notes == [
        DeviceSetNote(path: builder.path("device_set.plist"), kind: .fileTooLarge(size: 5000, limit: 4096))
      ])
    #expect(set.notes.first?.kind.message == "5000 bytes, more than the 4096 read from one file; left unread")
    #expect(set.devices.map(\.name) == ["P"])
  }

  @Test func oneByteOverTheLimitIsRefusedAndAtTheLimitIsRead() {
    let builder = phoneSet()
    let bytes = try? BinaryPropertyListWriter().bytes(
      for: DeviceSetBuilder.device(udid: Self.phone, name: "P"))
    let size = bytes?.count ?? 0
    #expect(
      DeviceSet.read(at: builder.root, limits: DeviceSetLimits(maximumFileSize: size, maximumEntries: 10))
        .notes == [])
    let over = DeviceSet.read(
      at: builder.root, limits: DeviceSetLimits(maximumFileSize: size - 1, maximumEntries: 10))
    #expect(over.notes.map(\.kind) == [.fileTooLarge(size: Int64(size), limit: size - 1)])
  }

  private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
      .joined()
  }
}
