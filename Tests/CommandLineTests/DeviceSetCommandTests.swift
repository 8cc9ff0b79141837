import Foundation
import TestSupport
import Testing
import WormholeVocabulary

/// `dump --device-set DIR` and `snapshot --device-set DIR` on realistic and hostile sets.
@Suite struct DeviceSetCommandTests {
  typealias Fixture = RealisticDeviceSet

  @Test func dumpShowsDevicesRuntimesStatesGroupsMailboxesPairsThenNotes() throws {
    let set = RealisticDeviceSet()
    let result = try run(["dump", "--device-set", set.builder.root.lossyText])
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.errors.isEmpty, "notes are part of the dump, on standard output: \(result.errors)")
    let lines = result.lines
    let text = result.output
    #expect(lines.first?.hasSuffix(": 4 devices, 2 pairs, 1 note") == true, "\(text)")
    #expect(text.contains("\"Ana's iPhone\"  iPhone 15 Pro, iOS 17.2, booted  \(Fixture.phone)"), "\(text)")
    #expect(
      text.contains("\"Ana's Watch\"  Apple Watch Series 9 45mm, watchOS 10.2, booted  \(Fixture.watch)"))
    #expect(text.contains("\"iPhone SE\"  iPhone SE 3rd generation, iOS 16.4, shutdown  \(Fixture.oldPhone)"))
    #expect(text.contains("\(Fixture.oldWatch)  (no readable device.plist)"))
    // The phone's group: the container itself is the wormhole directory, with Apple's archives.
    let phoneGroup = try #require(lines.firstIndex { $0.contains(Fixture.phoneGroup.lossyText) })
    #expect(lines[phoneGroup].hasPrefix("    group group.com.example.wormhole  "))
    #expect(lines[phoneGroup + 1] == "      . (3 mailboxes)")
    let rows = lines[(phoneGroup + 2)...(phoneGroup + 4)].map {
      $0.split(separator: " ").first.map(String.init)
    }
    #expect(rows == ["attributed", "formatter", "length"])
    for index in (phoneGroup + 2)...(phoneGroup + 4) {
      #expect(lines[index].hasPrefix("        "), "mailboxes are indented under their directory")
      #expect(lines[index].contains("B v1 "), "\(lines[index])")
    }
    // The watch's wormhole directory is a subdirectory of its container.
    let watchGroup = try #require(lines.firstIndex { $0.contains(Fixture.watchGroup.lossyText) })
    #expect(lines[watchGroup + 1] == "      wormhole (1 mailbox)")
    #expect(lines[watchGroup + 2].hasPrefix("        ranges 269B v1 "))
    let oldGroup = try #require(lines.firstIndex { $0.contains(Fixture.oldWatchGroup.lossyText) })
    #expect(lines[oldGroup].contains("group.com.example.old"))
    #expect(lines[oldGroup + 1] == "      no mailboxes")
    // Pairs after the devices, notes last.
    let pairs = try #require(lines.firstIndex(of: "Pairs:"))
    #expect(pairs > oldGroup)
    #expect(
      lines[pairs + 1]
        == "  \(Fixture.activePair) active: phone \(Fixture.phone) \"Ana's iPhone\", watch \(Fixture.watch) \"Ana's Watch\""
    )
    #expect(
      lines[pairs + 2].hasPrefix(
        "  \(Fixture.inactivePair) inactive: phone \(Fixture.oldPhone) \"iPhone SE\""))
    #expect(lines[pairs + 2].hasSuffix("watch \(Fixture.oldWatch) (no name)"))
    #expect(lines[pairs + 3] == "Notes:")
    #expect(
      lines[pairs + 4].hasPrefix(
        "  \(set.builder.root.lossyText)/\(Fixture.oldWatch)/device.plist: no device.plist"))
    #expect(lines.count == pairs + 5)
  }

  @Test func dumpJSONGivesEachGroupItsMailboxesAndTheNotes() throws {
    let set = RealisticDeviceSet()
    let result = try run(["dump", "--device-set", set.builder.root.lossyText, "--json"])
    #expect(result.status == 0, "\(result.errors)")
    let document = try #require(try JSONSerialization.jsonObject(with: result.outputData) as? [String: Any])
    let devices = try #require(document["devices"] as? [[String: Any]])
    #expect(
      devices.compactMap { $0["udid"] as? String } == [
        Fixture.phone, Fixture.watch, Fixture.oldPhone, Fixture.oldWatch,
      ])
    let phone = devices[0]
    #expect(phone["name"] as? String == "Ana's iPhone")
    #expect(phone["runtime_name"] as? String == "iOS 17.2")
    #expect(phone["state"] as? String == "booted")
    let group = try #require((phone["groups"] as? [[String: Any]])?.first)
    #expect(group["identifier"] as? String == Fixture.group)
    let container = set.container(Fixture.phone, Fixture.phoneGroup).lossyText
    #expect(group["path"] as? String == container)
    let mailboxes = try #require(group["mailboxes"] as? [[String: Any]])
    #expect(mailboxes.compactMap { $0["identifier"] as? String } == ["attributed", "formatter", "length"])
    for mailbox in mailboxes {
      #expect(mailbox["directory"] as? String == container)
      #expect(mailbox["directory_bytes"] is NSNull)
      #expect(mailbox["present"] as? Bool == true)
      #expect(mailbox["error"] is NSNull, "Apple's archives read: \(mailbox)")
      #expect((mailbox["summary"] as? String)?.isEmpty == false)
    }
    let attributed = try #require(mailboxes.first)
    #expect(
      attributed["bytes"] as? Int == RealisticDeviceSet.appleArchive("NSAttributedString.archive").count)
    let watchMailboxes = try #require(
      ((devices[1]["groups"] as? [[String: Any]])?.first?["mailboxes"] as? [[String: Any]]))
    #expect(
      watchMailboxes.compactMap { $0["directory"] as? String } == [
        set.container(Fixture.watch, Fixture.watchGroup).lossyText + "/wormhole"
      ])
    #expect((devices[3]["groups"] as? [[String: Any]])?.first?["mailboxes"] as? [Any] != nil)
    #expect(devices[3]["described"] as? Bool == false)
    #expect(devices[3]["name"] is NSNull)
    let pairs = try #require(document["pairs"] as? [[String: Any]])
    #expect(pairs.compactMap { $0["active"] as? Bool } == [true, false])
    #expect(pairs.first?["phone"] as? String == Fixture.phone)
    let notes = try #require(document["notes"] as? [[String: Any]])
    #expect(notes.compactMap { $0["kind"] as? String } == ["missing_device_plist"])
    #expect(
      notes.first?["path"] as? String == set.builder.root.lossyText + "/" + Fixture.oldWatch + "/device.plist"
    )
  }

  @Test func hostileNamesAreEscapedInTextAndExactInJSON() throws {
    let builder = DeviceSetBuilder()
    let udid = "11111111-2222-3333-4444-555555555555"
    let name = "Evil\u{1B}[2J\nName\u{202E}\u{7}"
    let group = "group.\u{1B}]0;pwned\u{7}.app"
    builder.plist(
      FileName(udid + "/device.plist"), DeviceSetBuilder.device(udid: udid, name: name), binary: true)
    builder.plist(DeviceSetBuilder.metadataPath(udid, "G"), DeviceSetBuilder.metadata(group), binary: false)
    builder.file(
      DeviceSetBuilder.container(udid, "G").appending("x\u{1B}[31m.archive"),
      RealisticDeviceSet.appleArchive("NSIndexSet-OneRange.archive"))
    let text = try run(["dump", "--device-set", builder.root.lossyText])
    #expect(text.status == 0, "\(text.errors)")
    for control in [0x1B, 0x07, 0x0D] { #expect(!text.outputData.contains(UInt8(control)), "\(text.output)") }
    #expect(!text.output.contains("\u{202E}"))
    #expect(text.lines.filter { $0.contains("Evil") }.count == 1, "the name's newline does not split it")
    #expect(text.lines.contains { $0.contains("pwned") && $0.hasPrefix("    group ") })
    #expect(text.lines.contains { $0.hasPrefix(#"        "x\u{1b}[31m" 269B v1 "#) }, "\(text.output)")
    let json = try run(["dump", "--device-set", builder.root.lossyText, "--json"])
    #expect(!json.outputData.contains(0x1B))
    let document = try #require(try JSONSerialization.jsonObject(with: json.outputData) as? [String: Any])
    let device = try #require((document["devices"] as? [[String: Any]])?.first)
    #expect(device["name"] as? String == name)
    let groupObject = try #require((device["groups"] as? [[String: Any]])?.first)
    #expect(groupObject["identifier"] as? String == group)
    #expect((groupObject["mailboxes"] as? [[String: Any]])?.first?["identifier"] as? String == "x\u{1B}[31m")
  }

  @Test func aDamagedSetIsNotesAndExitZero() throws {
    let builder = DeviceSetBuilder()
    builder.file("device_set.plist", Array("bplist00 truncated".utf8))
    builder.file("AAAA/device.plist", Array("not a property list".utf8))
    builder.directory("AAAA/data/Containers/Shared/AppGroup/NoMetadata")
    let result = try run(["dump", "--device-set", builder.root.lossyText, "--json"])
    #expect(result.status == 0, "\(result.errors)")
    let document = try #require(try JSONSerialization.jsonObject(with: result.outputData) as? [String: Any])
    let kinds = (document["notes"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } ?? []
    #expect(Set(kinds) == ["damaged_property_list", "missing_container_metadata"], "\(kinds)")
    #expect((document["devices"] as? [Any])?.count == 1)
  }

  @Test func aMissingOrWrongDirectoryIsAUsageError() throws {
    let missing = try run(["dump", "--device-set", "/nonexistent/CoreSimulator/Devices"])
    #expect(missing.status == 2)
    #expect(
      missing.errors.contains("--device-set: cannot open /nonexistent/CoreSimulator/Devices"),
      "\(missing.errors)")
    #expect(missing.errors.contains("Devices folder"))
    #expect(missing.output.isEmpty)
    let builder = DeviceSetBuilder()
    builder.file("plain", [1])
    let file = try run(["dump", "--device-set", builder.path("plain").lossyText])
    #expect(file.status == 2)
    #expect(file.errors.contains("is not a directory"), "\(file.errors)")
    let combined = try run(["dump", "--device-set", builder.root.lossyText, "/tmp"])
    #expect(combined.status == 2)
    #expect(combined.errors.contains("does not combine with ROOT"), "\(combined.errors)")
    // A set without a group container has nothing to follow: exit 1, nothing there.
    let follow = try run(["dump", "--device-set", builder.root.lossyText, "--follow"])
    #expect(follow.status == 1)
    #expect(
      follow.errors.contains("holds no group container that can be watched (0 groups)"), "\(follow.errors)")
    let snapshot = try run(["snapshot", "--device-set", "/nonexistent/Devices"])
    #expect(snapshot.status == 2)
    let readWrite = try run(["snapshot", "--read-write", "--home", builder.base])
    #expect(readWrite.status == 2)
    #expect(readWrite.errors.contains("--read-write applies to a device set only"), "\(readWrite.errors)")
  }

  @Test func snapshotNamesGroupsByDeviceAndIsReadOnly() throws {
    let set = RealisticDeviceSet()
    let result = try run(["snapshot", "--device-set", set.builder.root.lossyText, "--size", "240x30"])
    #expect(result.status == 0, "\(result.errors)")
    let text = result.output
    #expect(
      text.contains("▾ Ana's iPhone · iOS 17.2 · booted ⇄ Ana's Watch · group.com.example.wormhole"),
      "\(text)")
    #expect(
      text.contains(
        "▾ Ana's Watch · watchOS 10.2 · booted ⇄ Ana's iPhone · group.com.example.wormhole/wormhole"))
    #expect(text.contains("attributed"))
    #expect(text.contains("ranges"))
    #expect(!text.contains("/data/Containers/Shared/AppGroup"), "no UDID path in the tree")
    #expect(text.contains("4 devices, 2 pairs, 3 groups, read-only"))
    // The pairs and notes are in the message log; a write is refused.
    let log = try run([
      "snapshot", "--device-set", set.builder.root.lossyText, "--size", "240x40", "--keys", "L",
    ])
    #expect(log.output.contains("pair \(Fixture.activePair) active"), "\(log.output)")
    #expect(log.output.contains("note: "))
    #expect(log.output.contains("no device.plist"))
    let clear = try run([
      "snapshot", "--device-set", set.builder.root.lossyText, "--size", "240x30", "--keys", "gjd",
    ])
    #expect(clear.output.contains("read-only"), "\(clear.output)")
  }

  @Test func readWriteLiftsTheDeviceSetsReadOnly() throws {
    let set = RealisticDeviceSet()
    let root = set.builder.root.lossyText
    let writable = try run(["snapshot", "--device-set", root, "--read-write", "--size", "240x30"])
    #expect(writable.status == 0, "\(writable.errors)")
    #expect(writable.output.contains("3 groups, writable"), "\(writable.output)")
    #expect(!writable.output.contains("read-only"))
    let both = try run(["snapshot", "--device-set", root, "--read-write", "--read-only"])
    #expect(both.status == 2)
    #expect(both.errors.contains("contradict"), "\(both.errors)")
  }
}

/// The real dashboard on a device set, in tmux: the wiring from `--device-set` to the tree.
@Suite(.serialized, .hangLimit) struct DeviceSetDashboardEndToEndTests {
  @Test func aPassIntoAGroupAppearsLiveUnderItsDeviceAndWritesAreRefused() throws {
    let set = RealisticDeviceSet()
    let root = set.builder.root.lossyText
    let pane = try TmuxPane(width: 240, height: 32) { _ in
      "env TERM=xterm-256color LANG=C.UTF-8 \(executablePath) --device-set \(root)"
    }
    defer { pane.kill() }
    #expect(pane.waitFor("Ana's iPhone · iOS 17.2 · booted ⇄ Ana's Watch · group.com.example.wormhole"))
    let container = set.container(RealisticDeviceSet.oldWatch, RealisticDeviceSet.oldWatchGroup).lossyText
    let passed = try run(["pass", "--container", container, "arrived", "\"from the old watch\""])
    #expect(passed.status == 0, "\(passed.errors)")
    #expect(
      pane.waitFor("E0D1C2B3-A495-8677-6859-4A3B2C1D0E0F ⇄ iPhone SE (inactive) · group.com.example.old"))
    #expect(pane.waitFor("from the old watch"))
    pane.send("d")
    #expect(pane.waitFor("is disabled (a device set is read-only unless --read-write is given)"))
    pane.send("q")
    #expect(pane.waitUntil { pane.isDead })
    #expect(FileManager.default.fileExists(atPath: container + "/arrived.archive"), "nothing was cleared")
  }
}
