import Foundation
import MailboxWatcher
import TestSupport
import Testing

@testable import wormhole_tui

/// The dashboard watches the running peers' folders (their traffic journals) whatever roots it
/// was given: added when no root covers `<home>/peers`, not twice when one does.
@Suite struct PeerFoldersWatchedTests {
  @Test func thePeersFolderIsAddedWhenNoRootCoversIt() throws {
    let home = TemporaryDirectory()
    defer { home.remove() }
    let group = WatchRoot(path: home.path + "/AppGroup/g", kind: .container)
    // No peers yet: nothing to add.
    #expect(DashboardLaunch.withPeerFolders([group], pairsHome: home.path) == [group])
    try FileManager.default.createDirectory(
      atPath: home.path + "/peers/chat", withIntermediateDirectories: true)
    let peers = WatchRoot(path: home.path + "/peers", kind: .tree)
    #expect(DashboardLaunch.withPeerFolders([group], pairsHome: home.path) == [group, peers])
    // The home as a tree covers it, and so does the peers' folder itself.
    let whole = WatchRoot.home(home.path)
    #expect(DashboardLaunch.withPeerFolders([whole], pairsHome: home.path) == [whole])
    #expect(DashboardLaunch.withPeerFolders([peers], pairsHome: home.path) == [peers])
    // A sibling whose name starts the same does not.
    let sibling = WatchRoot(path: home.path + "/pe", kind: .tree)
    #expect(DashboardLaunch.withPeerFolders([sibling], pairsHome: home.path) == [sibling, peers])
  }
}
