import Dashboard
import KeyedArchive
import MailboxModel
import TerminalInput
import TerminalScreen
import Testing
import WormholeVocabulary

/// A paste arrives as one message and lands in the field being edited in one step: the JSON is
/// checked once, the filter set once, and the view draws only what is visible.
@Suite struct PasteTests {
  /// About 1 MB of JSON: an array of strings.
  static let megabyteOfJSON: String = {
    let element = "\"0123456789abcdef0123456789abcdef\""
    return "[" + Array(repeating: element, count: 30_000).joined(separator: ",") + "]"
  }()

  private func passForm(_ harness: DashboardHarness) -> PassForm? {
    guard case .pass(let form)? = harness.state.overlay else { return nil }
    return form
  }

  @Test func aMegabytePasteLandsInThePassFormAndIsCheckedOnce() throws {
    let json = Self.megabyteOfJSON
    #expect(json.utf8.count > 1_000_000)
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.type("p")
    harness.send(.paste(json))
    var form = try #require(passForm(harness))
    #expect(form.value.text == json)
    #expect(form.valueChecks == 1)
    #expect(form.problem == nil)
    #expect(harness.shows("valid"))
    #expect(harness.shows("0123456789abcdef\"]█"))  // the end of the value, where the cursor is

    // Typing after the paste still edits at the cursor; a value this large is not parsed again
    // per key, but once typing pauses: the key asks the loop to wake when the check is due.
    harness.type("<BS>")
    form = try #require(passForm(harness))
    #expect(form.value.text.utf8.count == json.utf8.count - 1)
    #expect(form.valueChecks == 1 && form.isCheckPending)
    #expect(form.problem?.hasPrefix("value: not checked yet") == true)
    harness.type("]")
    form = try #require(passForm(harness))
    #expect(form.valueChecks == 1)
    let due = harness.state.now + PassForm.checkDelayMilliseconds
    #expect(harness.effects.last == .wake(atMilliseconds: due))
    harness.send(.clock(due - 1))
    #expect(try #require(passForm(harness)).valueChecks == 1)
    harness.send(.clock(due))
    form = try #require(passForm(harness))
    #expect(form.valueChecks == 2 && !form.isCheckPending)
    #expect(form.problem == nil)
    // Enter with a check still waiting checks first, then passes.
    harness.type("<BS>]<Enter>")
    guard case .pass(_, let identifier, let value?, _)? = harness.effects.last,
      case .array(let elements) = value
    else {
      Issue.record("Enter did not pass the pasted value: \(harness.effects.count) effects")
      return
    }
    #expect(identifier == "a" && elements.count == 30_000)
  }

  @Test func aSmallValueIsStillCheckedAsEachKeyChangesIt() throws {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.type("p[1")
    var form = try #require(passForm(harness))
    #expect(form.valueChecks == 2 && !form.isCheckPending)
    #expect(form.problem?.hasPrefix("value: not valid JSON") == true)
    harness.type("]")
    form = try #require(passForm(harness))
    #expect(form.valueChecks == 3 && form.problem == nil)
  }

  @Test func aPasteOverTheLimitIsRefusedWithItsSizeAndNothingInserted() throws {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.type("p12")
    let tooLarge = String(repeating: "1", count: TextField.capacity - 1)
    harness.send(.paste(tooLarge))
    let form = try #require(passForm(harness))
    #expect(form.value.text == "12")
    #expect(form.valueChecks == 2)
    let status = try #require(harness.state.status)
    #expect(status.isError)
    #expect(status.text.hasPrefix("paste refused: 4.2 MB (4194303 bytes) would make the field 4194305 bytes"))
    #expect(harness.state.messageLog.entries.last?.text == status.text)
    // Exactly at the limit is taken.
    harness.type("<C-u>")
    harness.send(.paste(String(repeating: "2", count: TextField.capacity)))
    #expect(try #require(passForm(harness)).value.text.utf8.count == TextField.capacity)
  }

  @Test func aMegabytePasteIntoTheFilterSetsTheFilterOnce() {
    var harness = DashboardHarness(mailboxes: ["alpha": .integer(1), "beta": .integer(2)])
    harness.type("/")
    let before = harness.state.filterApplications
    let pattern = String(repeating: "a", count: 1_000_000)
    harness.send(.paste(pattern))
    #expect(harness.state.filterApplications == before + 1)
    #expect(harness.state.mailboxFilter?.text == pattern)
    // PCRE2 refuses a pattern this large, and the filter says so on screen (it then lets
    // everything through, as any invalid pattern does) rather than matching for seconds.
    #expect(harness.state.mailboxFilter?.error?.contains("too large") == true)
    #expect(harness.state.treeRowCount == 3)
    harness.type("<C-u>^al")
    #expect(harness.state.mailboxFilter?.text == "^al")
    #expect(harness.state.treeRowCount == 2)
  }

  @Test func theCommandLineAndTheReplayFormTakePastes() throws {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.type(":")
    harness.send(.paste("sort activity\n"))
    harness.type("<Enter>")
    #expect(harness.state.sort == .activity)

    harness.type("<Tab>r<C-u>")
    harness.send(.paste("elsewhere"))
    harness.type("<Enter>")
    guard case .replayVersion(_, _, _, _, let to, _)? = harness.effects.last else {
      Issue.record("no replay: \(harness.effects)")
      return
    }
    #expect(to == "elsewhere")
  }

  @Test func aPasteGoesToTheFocusedFieldOnly() throws {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.type("p<S-Tab>")  // the identifier
    harness.send(.paste("-more"))
    var form = try #require(passForm(harness))
    #expect(form.identifier.text == "a-more" && form.value.text.isEmpty)
    harness.type("<S-Tab>")  // the directory chooser: no text field
    harness.send(.paste("x"))
    form = try #require(passForm(harness))
    #expect(form.identifier.text == "a-more")
    #expect(harness.state.status?.text.hasPrefix("paste ignored") == true)
  }

  @Test func editingAroundThePastedTextKeepsCharactersWhole() {
    var field = TextField("ab")
    #expect(throws: Never.self) { try field.paste("e\u{301}日本👍🏽") }
    #expect(field.text == "abe\u{301}日本👍🏽")
    field.handle(.backspace)
    #expect(field.text == "abe\u{301}日本")
    field.handle(.left)
    field.handle(.left)
    field.handle(.backspace)
    #expect(field.text == "ab日本")
    field.handle(.character("x"))
    field.handle(.end)
    field.handle(.character("!"))
    #expect(field.text == "abx日本!")
    field.handle(.home)
    field.handle(.delete)
    #expect(field.text == "bx日本!")
    field.handle(.end)
    field.handle(.control("w"))
    #expect(field.text.isEmpty)
  }

  @Test func theWindowAroundTheCursorIsBounded() {
    var field = TextField(String(repeating: "x", count: 1_000_000))
    for _ in 0..<10 { field.handle(.left) }
    let window = field.window(scalars: 80)
    #expect(window.before.count == 80 && window.after.count == 10)
    #expect(window.clippedBefore && !window.clippedAfter)
  }

  @Test func aHostilePasteIsShownEscaped() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.type("p")
    harness.send(.paste("\"\u{1B}]0;title\u{7}\""))
    for line in harness.lines {
      #expect(!line.unicodeScalars.contains { $0.value < 0x20 })
    }
  }

  @Test func aMessageQuotingAHugePasteIsBounded() throws {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.type(":")
    harness.send(.paste("clear " + String(repeating: "n", count: 1_000_000)))
    harness.type("<Enter>")
    let status = try #require(harness.state.status)
    #expect(status.text.hasPrefix("clear refused:"))
    #expect(status.text.unicodeScalars.count < StatusMessage.maximumLength + 40)
    #expect(status.text.hasSuffix("more bytes)"))
    #expect(harness.state.messageLog.entries.last?.text == status.text)
  }
}
