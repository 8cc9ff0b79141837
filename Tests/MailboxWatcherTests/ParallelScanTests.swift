import Dispatch
import Glibc
import KeyedArchive
import MailboxModel
import Synchronization
import Testing
import WormholeVocabulary

@testable import MailboxWatcher

/// A large directory (the start-up scan of a big app group) is read in parts on every core:
/// every mailbox once, each summarized, whichever part read it; a file that is not a mailbox is
/// still said as such.
struct ParallelScanTests {
  @Test func aLargeDirectoryIsReadWholeInPartsEachMailboxSummarized() throws {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    let count = MailboxWatcher.parallelReadThreshold + 101
    var identifiers: [FileName] = []
    for index in 0..<count {
      writeAtomically(
        directory.path + "/m\(index).archive", try KeyedArchiveEncoder().encodeBytes(.integer(Int64(index))))
      identifiers.append(FileName("m\(index)"))
    }
    _ = mkfifo(directory.path + "/fifo.archive", 0o600)
    identifiers.append(FileName("fifo"))
    // One that went between the listing and the read.
    identifiers.append(FileName("gone"))
    let read = MailboxWatcher.observeAll(identifiers, in: FileName(directory.path), limit: 1 << 20)
    #expect(read.map(\.0) == Array(identifiers.dropLast()), "every mailbox once, in the listing's order")
    for (index, entry) in read.prefix(count).enumerated() {
      guard case .file(_, _, _, let summary?, _, _) = entry.1 else {
        Issue.record("m\(index) was not read as a summarized file: \(entry.1)")
        continue
      }
      #expect(summary == "\(index)")
    }
    if case .file = read.last?.1 { Issue.record("the FIFO was read as a file") }
  }
}
