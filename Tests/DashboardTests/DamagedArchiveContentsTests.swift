import Dashboard
import KeyedArchive
import MailboxModel
import MailboxWatcher
import PropertyList
import Testing
import WormholeVocabulary

/// A mailbox holding a keyed archive that does not resolve is shown as its property list, and
/// the contents pane says why, as `read` and `inspect` do, rather than showing `$objects` as if
/// that were the message.
@Suite struct DamagedArchiveContentsTests {
  /// A keyed archive whose root refers to an object `$objects` does not hold.
  private static let damaged: MailboxObservation = {
    let root = PropertyListValue.dictionary([
      "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
      "$top": .dictionary(["root": .uid(7)]), "$objects": .array([.string("$null")]),
    ])
    let bytes = (try? BinaryPropertyListWriter().bytes(for: root)) ?? []
    return .summarized(bytes: bytes, size: bytes.count, modifiedNanoseconds: 1_000_000_000)
  }()

  @Test func theTreeViewSaysWhyTheArchiveIsShownAsAPropertyList() {
    var harness = DashboardHarness(width: 160)
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(group),
          .directoryScanned(group, mailboxes: ["bad": Self.damaged], initial: true),
        ],
        at: harness.now))
    #expect(harness.state.selection == .mailbox(directory: group, identifier: "bad"))
    #expect(
      harness.shows("shown as a property list: not a valid keyed archive: $top refers to object 7"),
      "\(harness)")
  }

  @Test func aPlainPropertyListIsShownAsItsValueWithoutALineOfBlame() {
    let bytes = (try? BinaryPropertyListWriter().bytes(for: .dictionary(["volume": .integer(3)]))) ?? []
    var harness = DashboardHarness(width: 160)
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(group),
          .directoryScanned(
            group, mailboxes: ["prefs": .summarized(bytes: bytes, size: bytes.count, modifiedNanoseconds: 0)],
            initial: true),
        ], at: harness.now))
    #expect(harness.shows("volume: 3"), "\(harness)")
    #expect(!harness.shows("shown as a property list"), "\(harness)")
  }
}
