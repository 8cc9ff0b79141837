import Dashboard
import DevicePairing
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import DashboardRuntime

/// A peer that ends between the read that lists it and the opening of its pidfd leaves the
/// branch at once too: with no process left to watch, the source reads again instead of
/// showing it until the next read (here a minute away).
@Suite struct PeerEndedMeanwhileTests {
  @Test func aPeerKilledRightAfterTheReadGoesAtOnceNotAtTheNextRead() throws {
    let home = TemporaryDirectory(prefix: "wormhole-peers")
    defer { home.remove() }
    let peer = try PeerProcess(name: "lamp", home: home.path)
    defer { peer.stop() }
    let pid = peer.pid
    let path = home.path
    let killed = Mutex(false)
    let posts = Collector<[PeerSnapshot]>()
    let source = PeersSource(home: home.path, interval: .seconds(60))
    // After the first read that lists the peer, and before the source opens its pidfd: kill it
    // and await its end (a pidfd of our own), so its run lock is free and no pidfd can be had.
    source.afterRead.withLock {
      $0.run = {
        guard !killed.withLock({ $0 }), let peer = RunningPeer.all(home: path).first else { return }
        killed.withLock { $0 = true }
        let watch = DeviceExitWatch(runLockPath: peer.directory.lockPath(peer.identity.id))
        kill(pid, SIGKILL)
        _ = watch?.waitForExit(seconds: 10)
      }
    }
    source.start { message in
      if case .peers(let peers) = message { posts.append(peers) }
    }
    defer { source.cancel() }
    let after = posts.wait(seconds: 20) { $0.count >= 2 && $0.last?.isEmpty == true }
    #expect(after.first?.map(\.name) == ["lamp"], "\(after)")
    #expect(after.last?.isEmpty == true, "\(after)")
  }
}
