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
}
