import KeyedArchive
import MailboxModel
import TerminalInput
import Testing
import WormholeVocabulary

@testable import Dashboard

/// `:` commands are entries of the keymap: parsed into the actions the keys produce, listed in
/// help from the same table, with their arguments checked before anything is asked or done.
@Suite struct DashboardCommandTests {
  @Test func everyCommandNameIsUniqueAndNamesABinding() {
    let names = Keymap.bindings.flatMap { $0.command?.names ?? [] }
    #expect(Set(names).count == names.count)
    for name in [
      "help", "q", "quit", "pass", "clear", "clear-all", "replay", "theme", "sort", "filter",
      "freeze", "messages", "repaint",
    ] {
      #expect(Keymap.binding(command: name) != nil, "\(name)")
    }
  }

  @Test func aCommandParsesIntoTheActionItsKeyProduces() throws {
    func action(_ line: String) -> DashboardAction? {
      guard case .success(let (_, action))? = Keymap.parse(commandLine: line) else { return nil }
      return action
    }
    let keyed = Keymap.binding(for: .character("D"), in: .mailboxes)?.action
    #expect(action("clear-all") == keyed)
    #expect(action("q") == .quit && action("quit") == .quit)
    #expect(action("theme") == .theme(.next))
    #expect(action("theme  solarized dark ") == .theme(.named("solarized dark")))
    #expect(action("sort recency") == .sort(.recency))
    #expect(action("filter ^a b") == .filter("^a b"))
    #expect(action("filter") == .filter(""))
    #expect(action("pass") == .pass(nil))
    #expect(action("pass x {\"a\": 1}") == .pass(.init(identifier: "x", value: "{\"a\": 1}")))
    #expect(action("clear x") == .clear("x"))
    #expect(action("replay") == .replay(.init()))
    #expect(
      action("replay b coordinated-file") == .replay(.init(identifier: "b", transiting: .coordinatedFile)))
    #expect(action("help extra") == nil)
    #expect(Keymap.parse(commandLine: "   ") == nil)
  }

  @Test func replayRefusesExtraWordsAndUnknownTypes() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.type("<Tab>:replay foo bar baz<Enter>")
    #expect(harness.state.overlay == nil)
    #expect(harness.state.status?.text.contains(":replay takes at most TO-ID and TYPE") == true)
    harness.type(":replay foo bar<Enter>")
    #expect(harness.state.overlay == nil)
    #expect(
      harness.state.status?.text.contains("unknown transiting type bar; one of file, coordinated-file")
        == true)
    harness.type(":replay foo coordinated-file<Enter>")
    guard case .replay(let form)? = harness.state.overlay else {
      Issue.record(":replay TO-ID TYPE did not open the form")
      return
    }
    #expect(form.identifier.text == "foo" && form.transiting == .coordinatedFile)
    harness.type("<Enter>")
    guard case .replayVersion(_, _, _, _, let to, let type)? = harness.effects.last else {
      Issue.record("Enter did not replay: \(harness.effects)")
      return
    }
    #expect(to == "foo" && type == .coordinatedFile)
  }

  @Test func clearRefusesAnInvalidIdentifierBeforeAsking() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    for bad in ["..", ".", "a/b"] {
      harness.type(":clear \(bad)<Enter>")
      #expect(harness.state.overlay == nil, "\(bad)")
      #expect(harness.state.status?.text.hasPrefix("clear refused:") == true, "\(bad)")
    }
    #expect(harness.effects.isEmpty)
    harness.type(":clear a<Enter>")
    guard case .confirm? = harness.state.overlay else {
      Issue.record(":clear a did not ask")
      return
    }
  }

  @Test func passCommandChecksAsTheFormDoes() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.type(":pass .. 1<Enter>")
    #expect(harness.effects.isEmpty)
    #expect(harness.state.status?.text.hasPrefix("pass refused: identifier") == true)
    harness.type(":pass x {<Enter>")
    #expect(harness.effects.isEmpty)
    #expect(harness.state.status?.text.hasPrefix("pass refused: value") == true)
    harness.type(":pass x<Enter>")
    #expect(harness.effects == [.pass(directory: group, identifier: "x", value: nil, transiting: .file)])
    harness.type(":pass<Enter>")
    guard case .pass? = harness.state.overlay else {
      Issue.record(":pass alone did not open the form")
      return
    }
  }

  @Test func themeCommandsAskForATypedTheme() {
    var harness = DashboardHarness()
    harness.type("t:theme light<Enter>")
    #expect(harness.effects == [.loadTheme(.next), .loadTheme(.named("light"))])
  }

  @Test func helpListsEveryCommandFromTheTable() {
    var harness = DashboardHarness(width: 120, height: 120)
    harness.type("?")
    for binding in Keymap.bindings {
      guard let command = binding.command else { continue }
      #expect(harness.shows(command.synopsis), "\(command.synopsis)\(harness)")
    }
    #expect(harness.shows(":replay [TO-ID [TYPE]]"))
    #expect(harness.shows("C-l") && harness.shows("repaint the whole screen"))
    #expect(harness.shows(":messages"))
  }

  @Test func controlLRepaintsEverywhere() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.send(.key(.control("l")))
    #expect(harness.effects == [.repaint])
    harness.type("p")
    harness.send(.key(.control("l")))
    #expect(harness.effects == [.repaint, .repaint])
    guard case .pass? = harness.state.overlay else {
      Issue.record("Ctrl-L closed the form")
      return
    }
    harness.type("<Esc>:repaint<Enter>")
    #expect(harness.effects == [.repaint, .repaint, .repaint])
  }

  @Test func copyRefusesAValueTooLargeToHaveBeenKept() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.send(
      .modelEvents(
        [
          .mailboxChanged(
            directory: group, identifier: "big", .file(bytes: nil, size: 2_000_000, modifiedNanoseconds: 5))
        ],
        at: harness.now + 1))
    harness.effects = []
    harness.type("jj")
    #expect(harness.state.selection == .mailbox(directory: group, identifier: "big"))
    harness.type("y")
    #expect(harness.effects.isEmpty)
    #expect(harness.state.status?.text.contains("too large to copy (2.0 MB, 2000000 bytes") == true)
    #expect(harness.state.status?.isError == true)
    harness.type("k")
    harness.type("y")
    #expect(harness.effects == [.copyToClipboard("1")])
  }

  @Test func copyRefusesAValueThatIsNotAnArchive() {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    harness.send(
      .modelEvents(
        [
          .mailboxChanged(
            directory: group, identifier: "junk", .file(bytes: [1, 2, 3], size: 3, modifiedNanoseconds: 5))
        ],
        at: harness.now + 1))
    harness.effects = []
    harness.type("jjy")
    #expect(harness.state.selection == .mailbox(directory: group, identifier: "junk"))
    #expect(harness.effects.isEmpty)
    #expect(harness.state.status?.text.hasPrefix("copy refused: the value cannot be read") == true)
  }
}
