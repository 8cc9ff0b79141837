import Testing
import WormholeVocabulary

@testable import MailboxModel

/// A ``Mailbox`` keeps its fields in one box shared by its copies: still a value. A copy changed
/// leaves the original as it was, field by field, and a snapshot of the state taken before the
/// reducer changes a mailbox keeps what it held (views draw from such snapshots).
struct MailboxValueTests {
  private static func version(_ serial: UInt64, _ text: String) -> MailboxVersion {
    MailboxVersion(
      serial: serial, bytes: Array(text.utf8), size: text.utf8.count, modifiedNanoseconds: 1,
      observedMilliseconds: 2, sender: "app", sequence: serial, summary: text)
  }

  private static func original() -> Mailbox {
    var mailbox = Mailbox(identifier: "a")
    mailbox.current = version(2, "two")
    mailbox.history = [version(1, "one")]
    mailbox.versionCount = 2
    mailbox.lastChange = 10
    mailbox.error = "unreadable"
    return mailbox
  }

  /// Each way of changing a mailbox, applied to a copy.
  private static let changes: [(String, @Sendable (inout Mailbox) -> Void)] = [
    ("identifier", { $0.identifier = "b" }),
    ("current", { $0.current = nil }),
    ("current's sender", { $0.current?.sender = "other" }),
    ("history appended", { $0.history.append(version(3, "three")) }),
    ("history's element", { $0.history[0].sender = "other" }),
    ("version count", { $0.versionCount += 1 }),
    ("last change", { $0.lastChange = 11 }),
    ("error", { $0.error = nil }),
  ]

  @Test(arguments: changes.indices)
  func aCopyChangedLeavesTheOriginalAsItWas(_ index: Int) {
    let (name, change) = Self.changes[index]
    let mailbox = Self.original()
    var copy = mailbox
    change(&copy)
    #expect(mailbox.identifier == "a", "\(name)")
    #expect(mailbox.current == Self.version(2, "two"), "\(name)")
    #expect(mailbox.history == [Self.version(1, "one")], "\(name)")
    #expect(mailbox.versionCount == 2 && mailbox.lastChange == 10, "\(name)")
    #expect(mailbox.error == "unreadable", "\(name)")
    // And the copy did change: the change reached it, not only a temporary.
    #expect(
      copy.identifier != mailbox.identifier || copy.current != mailbox.current
        || copy.history != mailbox.history
        || copy.versionCount != mailbox.versionCount || copy.lastChange != mailbox.lastChange
        || copy.error != mailbox.error, "\(name)")
  }

  @Test func aSnapshotKeepsWhatItHeldWhileTheReducerChangesTheMailbox() {
    let directory: FileName = "/w/AppGroup/g"
    var state = ModelState()
    _ = state.apply(.directoryAppeared(directory), at: 0)
    let one = MailboxObservation.file(bytes: Array("one".utf8), size: 3, modifiedNanoseconds: 1)
    _ = state.apply(.mailboxChanged(directory: directory, identifier: "a", one), at: 1)
    let snapshot = state
    let two = MailboxObservation.file(bytes: Array("two".utf8), size: 3, modifiedNanoseconds: 2)
    _ = state.apply(.mailboxChanged(directory: directory, identifier: "a", two), at: 2)
    #expect(snapshot.mailbox("a", in: directory)?.current?.bytes == Array("one".utf8))
    #expect(snapshot.mailbox("a", in: directory)?.history.isEmpty == true)
    #expect(state.mailbox("a", in: directory)?.current?.bytes == Array("two".utf8))
    #expect(state.mailbox("a", in: directory)?.history.map(\.bytes) == [Array("one".utf8)])
  }
}
