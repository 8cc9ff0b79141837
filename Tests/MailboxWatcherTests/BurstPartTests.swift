import Dispatch
import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import Synchronization
import Testing
import WormholeVocabulary

@testable import MailboxWatcher

/// A long burst is handed over in parts of ``MailboxWatcher/burstPart`` mailboxes, each read
/// once: a consumer (the bridge) starts on the first part while the rest is read.
struct BurstPartTests {
  @Test func aLongBurstIsHandedOverInPartsWithEveryMailboxOnce() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let stage = TemporaryDirectory()
    defer { stage.remove() }
    let count = MailboxWatcher.burstPart * 3 + 7
    for index in 0..<count {
      let bytes = try KeyedArchiveEncoder().encodeBytes(.string("m\(index)"))
      writeAtomically(stage.path + "/m\(index).archive", bytes)
    }
    let queue = DispatchQueue(label: "burst")
    let batches = Mutex<[[FileName]]>([])
    let arrived = DispatchSemaphore(value: 0)
    let watcher = try MailboxWatcher(roots: [.container(directory.path)], queue: queue) { events in
      let changed = events.compactMap { event -> FileName? in
        guard case .mailboxChanged(_, let identifier, _) = event else { return nil }
        return identifier
      }
      guard !changed.isEmpty else { return }
      batches.withLock { $0.append(changed) }
      arrived.signal()
    }
    queue.sync { watcher.start() }
    defer { watcher.cancel() }
    // Stalled while the burst is made, so that it is read as one.
    queue.suspend()
    for index in 0..<count {
      #expect(rename(stage.path + "/m\(index).archive", directory.path + "/m\(index).archive") == 0)
    }
    queue.resume()
    while batches.withLock({ $0.joined().count }) < count {
      guard arrived.wait(timeout: .now() + 20) == .success else { break }
    }
    let seen = batches.withLock { $0 }
    #expect(seen.joined().count == count)
    #expect(Set(seen.joined()) == Set((0..<count).map { FileName("m\($0)") }))
    #expect(seen.allSatisfy { $0.count <= MailboxWatcher.burstPart }, "\(seen.map(\.count))")
    #expect(seen.count >= 4)
  }
}
