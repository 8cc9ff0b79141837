import Foundation
import Glibc
import Testing

/// A running device whose files are removed under it (`rm -rf` of its pair) stops and says why,
/// rather than running on a deleted tree while a new pair of that name gets a second device of
/// its role.
@Suite struct RemovedDeviceHomeTests {
  @Test func aDeviceWhosePairIsRemovedUnderItStopsAndSaysWhy() throws {
    let pairs = try PairVerbTests.PairHome()
    let watch = try pairs.device("watch")
    try FileManager.default.removeItem(atPath: pairs.path + "/pairs/p")
    let stopped = watch.finish(seconds: 20)
    #expect(stopped.reason == .exit && stopped.status == 3, "\(stopped.status) \(stopped.errors)")
    #expect(stopped.errors.contains("were removed or replaced"), "\(stopped.errors)")
    // Created again, the pair's watch runs as the only one of its role.
    #expect(try run(["pair", "create", "p"] + pairs.home).status == 0)
    let again = try pairs.device("watch")
    again.interrupt()
    #expect(again.finish().status == 0)
  }

  /// The pair removed and made again, its new watch running, before the old run notices (it is
  /// stopped meanwhile): the old run stops without touching the new run's files (its clean-ups
  /// used to remove the sockets and the report at those paths), and the new watch goes on.
  @Test func aRunThatStopsForItsRemovedFilesLeavesTheNewRunsFilesAlone() throws {
    let pairs = try PairVerbTests.PairHome()
    let old = try pairs.device("watch")
    old.signal(SIGSTOP)
    try FileManager.default.removeItem(atPath: pairs.path + "/pairs/p")
    #expect(try run(["pair", "create", "p"] + pairs.home).status == 0)
    let new = try pairs.device("watch")
    defer {
      new.interrupt()
      _ = new.finish()
    }
    let watchDirectory = pairs.path + "/pairs/p/watch"
    let files = try FileManager.default.contentsOfDirectory(atPath: watchDirectory).sorted()
    old.signal(SIGCONT)
    let stopped = old.finish(seconds: 20)
    #expect(stopped.reason == .exit && stopped.status == 3, "\(stopped.status) \(stopped.errors)")
    #expect(stopped.errors.contains("were removed or replaced"), "\(stopped.errors)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: watchDirectory).sorted() == files)
    // The new watch is still reached at its link socket, and its report says it runs.
    let phone = try pairs.device("phone")
    defer {
      phone.interrupt()
      _ = phone.finish()
    }
    #expect(phone.waitFor("the watch is reachable"), "\(phone.currentErrors)")
    let listed = try run(["pair", "list"] + pairs.home)
    #expect(listed.output.contains("watch running (pid"), "\(listed.output)")
    #expect(!listed.output.contains("not activated"), "\(listed.output)")
  }
}
