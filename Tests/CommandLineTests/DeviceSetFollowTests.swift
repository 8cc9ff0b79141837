import Foundation
import TestSupport
import Testing
import WormholeVocabulary

/// `dump --follow --device-set DIR`: the set's group containers followed live, each traffic line
/// naming its directory by the device label the dashboard's tree uses. Waits are on output
/// lines, never on time.
@Suite struct DeviceSetFollowTests {
  typealias Fixture = RealisticDeviceSet

  static let oldWatchLabel = "\(Fixture.oldWatch) ⇄ iPhone SE (inactive) · group.com.example.old"
  static let watchLabel = "Ana's Watch · watchOS 10.2 · booted ⇄ Ana's iPhone · group.com.example.wormhole"

  @Test func aPassIntoAGroupIsFollowedUnderItsDeviceLabel() throws {
    let set = RealisticDeviceSet()
    let old = set.container(Fixture.oldWatch, Fixture.oldWatchGroup).lossyText
    // The old watch's group holds a wormhole directory before the follower starts.
    #expect(try run(["pass", "--container", old, "seed", "0"]).status == 0)
    let follower = try RunningCommand(["dump", "--follow", "--device-set", set.builder.root.lossyText])
    defer {
      follower.interrupt()
      _ = follower.finish()
    }
    // Three groups, each holding a wormhole directory (the watch's a subdirectory of its container).
    let watching =
      "watching 3 wormhole directories in 3 groups of the device set \(set.builder.root.lossyText)"
    #expect(follower.waitFor(watching), "\(follower.currentErrors)")
    // The set's note, on standard error: standard output is the traffic.
    #expect(follower.currentErrors.contains("note: "), "\(follower.currentErrors)")
    #expect(try run(["pass", "--container", old, "arrived", "\"hello\"", "--sender", "script"]).status == 0)
    let watch = set.container(Fixture.watch, Fixture.watchGroup).lossyText + "/wormhole"
    #expect(try run(["pass", "--container", watch, "ranges", "2"]).status == 0)
    #expect(follower.waitFor(" arrived ", inErrors: false), "\(follower.currentOutput)")
    #expect(follower.waitFor("/wormhole\" ranges ", inErrors: false), "\(follower.currentOutput)")
    let lines = follower.currentOutput.split(separator: "\n").map(String.init)
    // The journal's retained record first, as `dump --follow` prints a directory's, then the two.
    #expect(lines.count == 3, "\(lines)")
    #expect(lines.first?.contains(" passed \"\(Self.oldWatchLabel)\" seed ") == true, "\(lines)")
    let arrived = lines.first { $0.contains(" arrived ") } ?? ""
    #expect(arrived.contains(" passed \"\(Self.oldWatchLabel)\" arrived "), "\(lines)")
    #expect(arrived.contains(" script"), "\(lines)")
    let ranges = lines.first { $0.contains(" ranges ") } ?? ""
    #expect(ranges.contains(" passed \"\(Self.watchLabel)/wormhole\" ranges "), "\(lines)")
    // Never the UDID path the label stands for.
    #expect(!follower.currentOutput.contains(set.builder.root.lossyText), "\(lines)")
  }

  @Test func theJSONKeepsTheDirectoryAndAddsTheLabel() throws {
    let set = RealisticDeviceSet()
    let old = set.container(Fixture.oldWatch, Fixture.oldWatchGroup).lossyText
    #expect(try run(["pass", "--container", old, "seed", "0"]).status == 0)
    let follower = try RunningCommand([
      "dump", "--follow", "--json", "--device-set", set.builder.root.lossyText,
    ])
    defer {
      follower.interrupt()
      _ = follower.finish()
    }
    #expect(follower.waitFor("watching 3 wormhole directories in 3 groups"), "\(follower.currentErrors)")
    #expect(try run(["pass", "--container", old, "arrived", "1"]).status == 0)
    #expect(try run(["clear", "--container", old, "arrived"]).status == 0)
    #expect(follower.waitFor("\"kind\":\"cleared\"", inErrors: false), "\(follower.currentOutput)")
    let entries = follower.currentOutput.split(separator: "\n").compactMap {
      try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
    }
    #expect(entries.compactMap { $0["kind"] as? String } == ["passed", "passed", "cleared"], "\(entries)")
    #expect(entries.compactMap { $0["identifier"] as? String } == ["seed", "arrived", "arrived"])
    for entry in entries {
      #expect(entry["directory"] as? String == old, "\(entry)")
      #expect(entry["label"] as? String == Self.oldWatchLabel, "\(entry)")
    }
  }

  @Test func followTakesNoOtherRoots() throws {
    let set = RealisticDeviceSet()
    let combined = try run(["dump", "--follow", "--device-set", set.builder.root.lossyText, "/tmp"])
    #expect(combined.status == 2)
    #expect(combined.errors.contains("does not combine with ROOT"), "\(combined.errors)")
  }
}
