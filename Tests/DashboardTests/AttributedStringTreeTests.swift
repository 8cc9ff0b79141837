import Dashboard
import KeyedArchive
import MailboxModel
import MailboxWatcher
import PropertyList
import Testing
import WormholeVocabulary

/// The contents pane's tree shows an attributed string's runs and their attributes, as `read`
/// and `inspect` do, not only its text; the diff sees a change of either.
@Suite struct AttributedStringTreeTests {
  /// `NSAttributedString` as Foundation archives one with a single run: the attributes as one
  /// dictionary, without `NSAttributeInfo`.
  private static func archive(text: String, font: String) -> MailboxObservation {
    let root = PropertyListValue.dictionary([
      "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
      "$top": .dictionary(["root": .uid(1)]),
      "$objects": .array([
        .string("$null"),
        .dictionary(["$class": .uid(5), "NSString": .uid(2), "NSAttributes": .uid(3)]),
        .string(text),
        .dictionary(["$class": .uid(4), "NS.keys": .array([.uid(6)]), "NS.objects": .array([.uid(7)])]),
        .dictionary([
          "$classname": .string("NSDictionary"),
          "$classes": .array([.string("NSDictionary"), .string("NSObject")]),
        ]),
        .dictionary([
          "$classname": .string("NSAttributedString"),
          "$classes": .array([.string("NSAttributedString"), .string("NSObject")]),
        ]),
        .string("Font"), .string(font),
      ]),
    ])
    let bytes = (try? BinaryPropertyListWriter().bytes(for: root)) ?? []
    return .summarized(bytes: bytes, size: bytes.count, modifiedNanoseconds: 1_000_000_000)
  }

  @Test func theRunsAndTheirAttributesAreRows() {
    var harness = DashboardHarness(width: 140)
    harness.scan(["label": Self.archive(text: "hello", font: "Times")])
    #expect(harness.shows("Font: \"Times\""), "\(harness)")
    #expect(harness.shows("0..<5: {1}"), "\(harness)")
  }

  @Test func theDiffSeesAChangedAttribute() {
    var harness = DashboardHarness(width: 140)
    harness.scan(["label": Self.archive(text: "hello", font: "Times")])
    harness.now += 1000
    harness.send(
      .modelEvents(
        [
          .mailboxChanged(directory: group, identifier: "label", Self.archive(text: "hello", font: "Courier"))
        ],
        at: harness.now))
    harness.type("<Tab>vvvv")
    #expect(harness.shows("\"Times\""), "\(harness)")
    #expect(harness.shows("\"Courier\""), "\(harness)")
  }
}
