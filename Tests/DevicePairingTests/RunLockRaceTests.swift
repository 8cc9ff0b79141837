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

  /// A released lock is free at once, though a child forked meanwhile still has the lock's file
  /// open (as a child does between its fork and its exec, close-on-exec notwithstanding): a
  /// device that stopped no longer looks running, and its role can run again.
  @Test func aReleasedLockIsFreeThoughAForkedChildHasItsFileOpen() throws {
    let folder = TemporaryDirectory(prefix: "runlock")
    defer { folder.remove() }
    let path = folder.path("run.lock")
    let lock = try RunLock(path: path)
    var children: [pid_t] = []
    defer {
      for child in children {
        kill(child, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(child, &status, 0)
      }
    }
    children.append(try Self.forkAChildThatWaits())
    lock.release()
    #expect(RunLock.holder(at: path) == nil)
    let again = try RunLock(path: path)
    #expect(RunLock.holder(at: path) == getpid())
    again.release()
    // The same of the lock a sweep holds while it runs.
    var swept = false
    RunLock.whileFree(at: path) { _ in
      swept = true
      if let child = try? Self.forkAChildThatWaits() { children.append(child) }
    }
    #expect(swept && children.count == 2)
    #expect(RunLock.holder(at: path) == nil, "the sweep's lock is released too")
  }

  /// A child of this process that does nothing until it is killed, holding copies of every
  /// descriptor open now.
  private static func forkAChildThatWaits() throws -> pid_t {
    let child = fork()
    if child == 0 {
      // Only async-signal-safe calls in the child of a threaded process.
      while true { pause() }
    }
    try #require(child > 0, "fork failed: \(errno)")
    return child
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
