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

  /// Many mailboxes of one directory are opened relative to it; a link or a FIFO among them is
  /// still reported as such, not followed.
  @Test func aBurstReadRelativeToItsDirectoryReportsLinksAndFIFOsAsSuch() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let stage = TemporaryDirectory()
    defer { stage.remove() }
    let target = stage.path + "/target"
    let bytes = try KeyedArchiveEncoder().encodeBytes(.string("m"))
    writeAtomically(target, bytes)
    let queue = DispatchQueue(label: "burst")
    let seen = Mutex<[FileName: MailboxObservation]>([:])
    let arrived = DispatchSemaphore(value: 0)
    let watcher = try MailboxWatcher(roots: [.container(directory.path)], queue: queue) { events in
      seen.withLock { seen in
        for case .mailboxChanged(_, let identifier, let observation) in events {
          seen[identifier] = observation
        }
      }
      arrived.signal()
    }
    queue.sync { watcher.start() }
    defer { watcher.cancel() }
    queue.suspend()
    for index in 0..<MailboxWatcher.directoryOpeningCount {
      writeAtomically(directory.path + "/m\(index).archive", bytes)
    }
    // Moved in, as a writer's rename would: their only event.
    #expect(symlink(target, stage.path + "/link.archive") == 0)
    #expect(mkfifo(stage.path + "/fifo.archive", 0o600) == 0)
    for name in ["link", "fifo"] {
      #expect(rename(stage.path + "/\(name).archive", directory.path + "/\(name).archive") == 0)
    }
    queue.resume()
    let expected = MailboxWatcher.directoryOpeningCount + 2
    while seen.withLock({ $0.count }) < expected {
      guard arrived.wait(timeout: .now() + 20) == .success else { break }
    }
    let observations = seen.withLock { $0 }
    #expect(observations["link"] == .unreadable("it is a symbolic link, which is not followed"))
    #expect(observations["fifo"] == .unreadable("it is not a regular file"))
    for index in 0..<MailboxWatcher.directoryOpeningCount {
      guard case .file(let read, _, _, _, _, _)? = observations[FileName("m\(index)")] else {
        Issue.record("m\(index): \(String(describing: observations[FileName("m\(index)")]))")
        continue
      }
      #expect(read == bytes)
    }
  }
}
