import DevicePairing
import DeviceSession
import Foundation
import Glibc
import Testing

@Suite struct PairStoreTests {
  @Test func pairNamesFollowTheIdentifierRules() {
    for bad in ["", ".", "..", "a/b", "a\u{0}b", "tab\there", String(repeating: "x", count: 65)] {
      #expect(throws: PairStoreError.self) { try PairStore.name(bad) }
    }
    #expect((try? PairStore.name("My Watch ⌚")) != nil)
    // Shown escaped: a bidirectional override cannot reorder a line.
    let name = try? PairStore.name("evil\u{202E}txt")
    #expect(name.map(PairDisplay.name) == "\"evil\\u{202e}txt\"")
    #expect(throws: PairStoreError.self) { try PairStore.name("a\u{1B}[31m/b") }
    do {
      _ = try PairStore.name("a\u{1B}[31m/b")
    } catch {
      #expect(!error.description.contains("\u{1B}") && error.description.contains("\\u{1b}"))
    }
  }

  @Test func createListAndDeleteFollowTheLayout() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = home.store
    let pair = try makePair(home, "alpha")
    #expect(throws: PairStoreError.pairExists(pair.name)) { try store.create(pair.name) }
    _ = try makePair(home, "beta")
    let json = (try String(contentsOfFile: home.path + "/pairs/alpha/pair.json", encoding: .utf8))
    #expect(json == "{\"format\":1,\"name\":\"alpha\"}\n")
    for role in ["phone", "watch"] {
      var status = stat()
      #expect(stat(home.path + "/pairs/alpha/\(role)/outbox", &status) == 0)
    }
    let listed = try store.list()
    #expect(listed.map(\.pair.name.text) == ["alpha", "beta"])
    #expect(listed.allSatisfy { !$0.phone.isRunning && !$0.watch.isRunning && !$0.isReachable })
    try store.delete(pair.name)
    #expect(try store.list().map(\.pair.name.text) == ["beta"])
    #expect(throws: PairStoreError.noSuchPair(pair.name)) { try store.delete(pair.name) }
  }

  @Test func aRunningDeviceRefusesASecondRunnerAndADelete() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let store = home.store
    let pair = try makePair(home)
    let watch = try DeviceUnderTest(store, pair.watch)
    #expect(throws: PairStoreError.alreadyRunning(pair.watch, pid: getpid())) {
      _ = try SimulatedDevice(store: store, address: pair.watch, applicationGroup: "group.test")
    }
    #expect(throws: PairStoreError.deviceRunning(pair.watch, pid: getpid())) { try store.delete(pair.name) }
    let status = store.status(of: pair)
    #expect(status.watch.runningPID == getpid() && !status.phone.isRunning && !status.isReachable)
    watch.stop()
    #expect(store.status(of: pair).watch.runningPID == nil)
    // Stopped, the role can run again.
    let again = try DeviceUnderTest(store, pair.watch)
    again.stop()
    try store.delete(pair.name)
  }

  @Test func forceDeletesWhileRunning() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try DeviceUnderTest(home.store, pair.phone)
    try home.store.delete(pair.name, force: true)
    #expect(throws: PairStoreError.noSuchPair(pair.name)) { _ = try home.store.pair(named: pair.name) }
    phone.stop()
  }

  @Test func aDamagedPairIsReportedNotTrusted() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    try "{\"name\": 3}".write(toFile: home.path + "/pairs/pair/pair.json", atomically: true, encoding: .utf8)
    #expect(throws: PairStoreError.self) { _ = try home.store.pair(named: pair.name) }
    #expect(try home.store.list().isEmpty)
  }
}
