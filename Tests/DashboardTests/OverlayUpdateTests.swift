import KeyedArchive
import TerminalInput
import TerminalScreen
import Testing
import WormholeVocabulary

@testable import Dashboard

/// Each overlay's update on its own: a key or a paste in, the overlay that stays and what it
/// asks of the dashboard out.
@Suite struct OverlayUpdateTests {
  static let size = Rect(x: 0, y: 0, width: 80, height: 24)

  static func step(_ overlay: Overlay, _ key: Key, log: MessageLog = MessageLog()) -> OverlayStep {
    overlay.update(key, messageLog: log, size: size)
  }

  @Test func helpScrollsWithinItsTopAndAnyOtherKeyClosesIt() {
    guard case .help(let scroll)? = Self.step(.help(scroll: 0), .down).overlay else {
      Issue.record("help closed on j")
      return
    }
    #expect(scroll == 1)
    guard case .help(let top)? = Self.step(.help(scroll: 3), .pageUp).overlay else {
      Issue.record("help closed on PgUp")
      return
    }
    #expect(top == 0)
    #expect(Self.step(.help(scroll: 0), .character("x")).overlay == nil)
  }

  @Test func theMessageLogScrollsBackNoFurtherThanItsOldestMessage() {
    var log = MessageLog()
    for index in 0..<40 { log.append("message \(index)", isError: false, at: Int64(index)) }
    guard case .messages(let oldest)? = Self.step(.messages(scroll: 0), .character("g"), log: log).overlay
    else {
      Issue.record("the log closed on g")
      return
    }
    #expect(oldest > 0)
    guard case .messages(let limit)? = Self.step(.messages(scroll: oldest), .up, log: log).overlay else {
      Issue.record("the log closed on k")
      return
    }
    #expect(limit == oldest)
    guard case .messages(let newest)? = Self.step(.messages(scroll: 0), .down, log: log).overlay else {
      Issue.record("the log closed on j")
      return
    }
    #expect(newest == 0)
  }

  @Test func aConfirmationGivesItsEffectOnYesAndSaysCancelledOnNo() {
    let effect = DashboardEffect.clear(directory: group, identifier: "a")
    let confirm = Overlay.confirm(Confirmation(question: "Clear?", effect: effect))
    let yes = Self.step(confirm, .character("y"))
    #expect(yes.overlay == nil)
    guard case .effect(let given)? = yes.request else {
      Issue.record("yes asked for no effect")
      return
    }
    #expect(given == effect)
    let no = Self.step(confirm, .escape)
    #expect(no.overlay == nil)
    guard case .report(let text, false)? = no.request else {
      Issue.record("no said nothing")
      return
    }
    #expect(text == "cancelled")
    #expect(Self.step(confirm, .character("x")).overlay != nil)
    #expect(Self.step(confirm, .character("x")).request == nil)
  }

  @Test func theCommandLineHandsItsTextOverOnEnter() {
    var overlay = Overlay.command(TextField())
    for character in "sort name" { overlay = Self.step(overlay, .character(character)).overlay ?? overlay }
    let enter = Self.step(overlay, .enter)
    #expect(enter.overlay == nil)
    guard case .command(let line)? = enter.request else {
      Issue.record("Enter ran no command")
      return
    }
    #expect(line == "sort name")
    #expect(Self.step(overlay, .escape).request == nil)
  }

  @Test func aFilterAsksForItsTextOnEachEditAndForNoFilterOnEscape() {
    let typed = Self.step(.filter(TextField("ab"), pane: .traffic), .character("c"))
    guard case .filter(let text, .traffic)? = typed.request else {
      Issue.record("an edit set no filter")
      return
    }
    #expect(text == "abc")
    #expect(Self.step(.filter(TextField("ab"), pane: .traffic), .left).request == nil)
    guard
      case .filter(let cleared, .mailboxes)? = Self.step(.filter(TextField("ab"), pane: .mailboxes), .escape)
        .request
    else {
      Issue.record("Esc kept the filter")
      return
    }
    #expect(cleared.isEmpty)
  }

  @Test func aPasteOutsideATextFieldIsRefusedAndKeepsTheOverlay() throws {
    let step = try Overlay.help(scroll: 2).paste("Dy")
    guard case .help(2)? = step.overlay, case .report(_, true)? = step.request else {
      Issue.record("a paste into help was not refused")
      return
    }
    let filter = try Overlay.filter(TextField(), pane: .mailboxes).paste("^a")
    guard case .filter("^a", .mailboxes)? = filter.request else {
      Issue.record("a pasted filter was not set")
      return
    }
  }
}
