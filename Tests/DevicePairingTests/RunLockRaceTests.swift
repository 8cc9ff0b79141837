import DeviceSession
import Glibc
import PeerSession
import TestSupport
import Testing

@testable import DevicePairing

/// A run lock taken while another process sweeps stale files.
@Suite struct RunLockRaceTests {
  /// A sweep removed the lock file between its opening and its locking: the lock is taken on a
  /// file made again at its path, so others still see it held.
  @Test func aLockFileRemovedBeforeItWasLockedIsMadeAgain() throws {
    let folder = TemporaryDirectory(prefix: "runlock")
    defer { folder.remove() }
    let path = folder.path("peer.lock")
    var removals = 0
    let lock = try RunLock(path: path) {
      if removals == 0 { _ = unlink(path) }
      removals += 1
    }
    #expect(removals == 2)
    #expect(RunLock.holder(at: path) == getpid())
    lock.release()
    #expect(RunLock.holder(at: path) == nil)
  }

  /// A lock that cannot be made where the home is (no permission, a read-only file system) says
  /// what to do, as the message verbs do of a read-only directory. sysfs refuses to create a
  /// file to every user, root too, so the refusal is the same wherever the suite runs.
  @Test func aLockThatCannotBeCreatedSaysAWritableHomeIsNeeded() throws {
    var status = stat()
    try #require(stat("/sys", &status) == 0, "/sys is not mounted")
    do {
      let lock = try RunLock(path: "/sys/run.lock")
      lock.release()
      Issue.record("a run lock was taken in /sys")
    } catch {
      guard case .unavailable(let message) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(message.contains("/sys/run.lock"), "\(message)")
      #expect(
        message.contains(
          "running or changing a device or a peer needs a writable home (choose one with --home or WORMHOLE_HOME)"
        ),
        "\(message)")
    }
  }

  /// A peer on a home where its service's folder cannot be made says the same, not a bare
  /// mkdir error (sysfs refuses a new folder to every user).
  @Test func aPeerWhoseFolderCannotBeMadeSaysAWritableHomeIsNeeded() throws {
    let directory = PeerDirectory(home: "/sys/wormhole-test-home", service: try ServiceType("chat"))
    let peer = try #require(PeerIdentity(name: try PeerName("desk"), id: 0x1111_6da4))
    do {
      let lock = try directory.takeRunLock(for: peer)
      lock.release()
      Issue.record("a peer's run lock was taken in /sys")
    } catch {
      #expect(error.reason.contains("/sys/wormhole-test-home"), "\(error)")
      #expect(
        error.reason.contains("needs a writable home (choose one with --home or WORMHOLE_HOME)"), "\(error)")
    }
  }

  /// A file removed at every attempt ends in an error that says so, not a lock on nothing.
  @Test func aLockFileRemovedAtEveryAttemptIsRefused() throws {
    let folder = TemporaryDirectory(prefix: "runlock")
    defer { folder.remove() }
    let path = folder.path("peer.lock")
    #expect(throws: RunLock.Failure.self) {
      _ = try RunLock(path: path) { _ = unlink(path) }
    }
  }
}

/// What a sweep of stale files may do under a run lock.
@Suite struct RunLockSweepTests {
  @Test func aSweepRunsOnlyWhileNoProcessHoldsTheLock() throws {
    let folder = TemporaryDirectory(prefix: "runlock")
    defer { folder.remove() }
    let path = folder.path("peer.lock")
    var seen: [Bool] = []
    RunLock.whileFree(at: path) { seen.append($0) }
    #expect(seen == [false], "no lock file: the sweep runs, told so")
    let lock = try RunLock(path: path)
    RunLock.whileFree(at: path) { seen.append($0) }
    #expect(seen == [false], "the lock is held: nothing runs")
    lock.release()
    RunLock.whileFree(at: path) { hasLockFile in
      seen.append(hasLockFile)
      // Held by the sweep meanwhile: a process taking it now is refused.
      #expect(throws: RunLock.Failure.self) { _ = try RunLock(path: path) }
    }
    #expect(seen == [false, true])
  }
}

/// A lock that waits for a sweep is still refused when a process really holds it.
@Suite struct RunLockWaitTests {
  @Test func aWaitingLockIsRefusedOnceTheWaitIsOver() throws {
    let folder = TemporaryDirectory(prefix: "runlock")
    defer { folder.remove() }
    let path = folder.path("peer.lock")
    let holder = try RunLock(path: path)
    #expect(throws: RunLock.Failure.held(pid: getpid())) { _ = try RunLock(path: path, waits: true) }
    holder.release()
    _ = try RunLock(path: path, waits: true)
  }
}
