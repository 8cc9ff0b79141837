import KeyedArchive
import MailboxModel
import TerminalInput
import Testing
import WormholeVocabulary

@testable import Dashboard

/// `--read-only` holds on every path that can write: each key in each pane, each `:` command
/// with and without arguments, the forms and the confirmations, even when the policy changes
/// while one is open. Each path is first shown to write when writes are allowed, so a path that
/// silently stopped reaching a write cannot pass for a refusal.
@Suite struct ReadOnlyTests {
  /// A mailbox with history, and a traffic entry for it: something for every write to act on.
  static func harness(readOnly: Bool) -> DashboardHarness {
    var harness = DashboardHarness(readOnly: readOnly, mailboxes: ["a": .integer(1)])
    harness.changeMailbox("a", to: .integer(2))
    harness.send(.clock(harness.now + 5_000))  // the pairing window closes: a traffic entry
    harness.effects = []
    return harness
  }

  /// Keys typed from the start, and whether they write when writes are allowed.
  static let paths: [(keys: String, writes: Bool)] = [
    // The mailboxes pane.
    ("p1<Enter>", true), ("dy", true), ("<Del>y", true), ("D<Enter>", true), ("r<Enter>", false),
    // The contents pane.
    ("<Tab>p1<Enter>", true), ("<Tab>dy", true), ("<Tab><Del>y", true), ("<Tab>Dy", true),
    ("<Tab>r<Enter>", true), ("<Tab>vvvr<Enter>", true),
    // The traffic pane (d and D do not apply there).
    ("<Tab><Tab>p1<Enter>", true), ("<Tab><Tab>dy", false), ("<Tab><Tab>Dy", false),
    ("<Tab><Tab>r<Enter>", true), ("<Tab><Tab>kr<C-u>b<Enter>", true),
    // Commands, with and without arguments.
    (":pass<Enter>1<Enter>", true), (":pass x 1<Enter>", true), (":pass x<Enter>", true),
    (":clear<Enter>y", true), (":clear a<Enter>y", true), (":clear-all<Enter>y", true),
    (":replay<Enter><Enter>", true), ("<Tab>:replay<Enter><Enter>", true),
    ("<Tab>:replay b<Enter><Enter>", true), ("<Tab>:replay b coordinated-file<Enter><Enter>", true),
    ("<Tab><Tab>:replay b file<Enter><Enter>", true),
    (":clear-all x<Enter>y", false), ("<Tab><Tab>:clear-all<Enter>y", true),
    ("<Tab><Tab>:clear a<Enter>y", true),
  ]

  @Test(arguments: paths.indices)
  func everyWritePathIsRefused(index: Int) {
    let (keys, writes) = Self.paths[index]
    var writable = Self.harness(readOnly: false)
    writable.type(keys)
    #expect(writable.effects.contains { $0.writes } == writes, "\(keys) writable: \(writable.effects)")

    var readOnly = Self.harness(readOnly: true)
    readOnly.type(keys)
    #expect(!readOnly.effects.contains { $0.writes }, "\(keys): \(readOnly.effects)")
    #expect(!opensWrite(readOnly.state.overlay), "\(keys) left a write form or question open")
    if writes { #expect(readOnly.state.messageLog.entries.contains { $0.text.hasPrefix("read-only") }) }
  }

  /// A pair and running peers on screen: the route form to a pair's device and to a peer (`u`,
  /// `:push`, `:open-url`), and a peer's data, typed or from a file (`:peer-send`).
  static func peersHarness(readOnly: Bool) -> DashboardHarness {
    var harness = DashboardHarness(readOnly: readOnly, mailboxes: ["a": .integer(1)])
    harness.send(
      .pairs([
        PairSnapshot(
          name: "desk", home: "/w", phone: .init(role: .phone, runningPID: 1), watch: .init(role: .watch))
      ]))
    harness.send(
      .peers([
        PeerSnapshot(
          service: "chat", name: "lamp", id: 0x1a2b, pid: 2,
          controlSocketPath: "/w/peers/chat/0000000000001a2b.control.sock"),
        PeerSnapshot(
          service: "chat", name: "bob", id: 0xb0b, pid: 3,
          controlSocketPath: "/w/peers/chat/0000000000000b0b.control.sock"),
      ]))
    harness.effects = []
    return harness
  }

  static let peerPaths: [String] = [
    #"u{"aps":{}}<Enter>"#, #"u<S-Tab><S-Tab><Right><Tab>{"aps":{}}<Enter>"#,
    #"u<S-Tab><S-Tab><Right><Right><Tab>{"aps":{}}<Enter>"#,
    #"u<S-Tab><S-Tab><S-Tab><Right><Tab>l<Tab>myapp://x<Enter>"#, #":push<Enter>{"aps":{}}<Enter>"#,
    #":open-url<Enter><S-Tab><S-Tab><S-Tab><Right><Tab><Right><Tab>myapp://x<Enter>"#,
    "G:peer-send lamp reliable hi<Enter>", "G:peer-send lamp unreliable @notes.bin<Enter>",
  ]

  @Test(arguments: peerPaths)
  func everyRouteAndPeerDataPathIsRefused(keys: String) {
    var writable = Self.peersHarness(readOnly: false)
    writable.type(keys)
    #expect(writable.effects.contains { $0.writes }, "\(keys) writable: \(writable.effects)")

    var readOnly = Self.peersHarness(readOnly: true)
    readOnly.type(keys)
    #expect(!readOnly.effects.contains { $0.writes }, "\(keys): \(readOnly.effects)")
    if case .route? = readOnly.state.overlay { Issue.record("\(keys) left the route form open") }
    #expect(readOnly.state.messageLog.entries.contains { $0.text.hasPrefix("read-only") })
  }

  private func opensWrite(_ overlay: Overlay?) -> Bool {
    switch overlay {
    case .pass?, .replay?, .confirm?: return true
    default: return false
    }
  }

  /// Forms and questions opened before the dashboard became read-only still cannot write:
  /// the effects themselves are refused, whatever produced them.
  @Test(arguments: [
    ("p", "1<Enter>"), ("d", "y"), ("D", "<Enter>"), ("<Tab>r", "<Enter>"), ("<Tab><Tab>r", "<Enter>"),
    (":clear a<Enter>", "y"), ("<Tab>:replay b<Enter>", "<Enter>"),
  ])
  func formsAndConfirmationsOpenedBeforeCannotWrite(open: String, finish: String) {
    var control = Self.harness(readOnly: false)
    control.type(open + finish)
    #expect(control.effects.contains { $0.writes }, "\(open)\(finish) does not write: \(control.effects)")

    var harness = Self.harness(readOnly: false)
    harness.type(open)
    #expect(harness.state.overlay != nil)
    harness.state.isReadOnly = true
    harness.type(finish)
    #expect(!harness.effects.contains { $0.writes }, "\(harness.effects)")
    #expect(harness.state.status?.text.hasPrefix("read-only:") == true)
    #expect(harness.state.status?.isError == true)
  }

  @Test func everyWritingEffectSaysItWrites() {
    let writing: [DashboardEffect] = [
      .pass(directory: group, identifier: "a", value: nil, transiting: .file),
      .clear(directory: group, identifier: "a"), .clearAll(directory: group),
      .replayVersion(
        directory: group, identifier: "a", serial: 1, toDirectory: group, toIdentifier: "b", transiting: .file
      ),
      .replayEntry(entry: 1, toDirectory: group, toIdentifier: "b", transiting: .file),
      .cancelTransfer(home: home, pair: "desk", role: .phone, id: 1),
      .answerInvitation(
        PeerAnswer(controlSocketPath: "/nowhere", peer: "a#0001", from: "b#0002", accepts: true)),
      .peerSend(
        PeerDataSend(controlSocketPath: "/nowhere", peer: "a#0001", targets: "b", mode: "reliable", data: [1])
      ),
      .peerCommand(PeerCommand(controlSocketPath: "/nowhere", peer: "a#0001", request: .disconnect)),
      .peerCommand(
        PeerCommand(controlSocketPath: "/nowhere", peer: "a#0001", request: .cancel(id: "1/1", name: "r"))),
      // A push and a deep link write too: the device routes them, and a route may pass them on.
      .route(RouteSend(home: home, pair: "desk", role: .phone, delivery: .push(#"{"aps":{}}"#))),
      .route(RouteSend(home: home, pair: "desk", role: .watch, delivery: .deepLink("app://x"), replayOf: 3)),
      // To a running peer too, and a peer's data from a file.
      .route(
        RouteSend(
          to: .peer(
            RouteTarget.Peer(
              service: "chat", id: 1, label: "a#0001", selector: "a", controlSocketPath: "/nowhere")),
          delivery: .push(#"{"aps":{}}"#), replayOf: 4)),
      .peerSend(
        PeerDataSend(
          controlSocketPath: "/nowhere", peer: "a#0001", targets: "b", mode: "reliable", data: [],
          file: "x.bin")),
    ]
    // A session send of each type and each content writes (to the pair's devices).
    let sender = SessionSend.Sender(home: home, pair: "desk", role: .watch, applicationGroup: "g")
    let contents: [SessionSend.Content] = [
      .value(.integer(1)), .version(directory: group, identifier: "a", serial: 1), .entry(1),
    ]
    let sends = [TransitingType.sessionContext, .sessionMessage, .sessionFile].flatMap { type in
      contents.map {
        DashboardEffect.sessionSend(
          SessionSend(sender: sender, transiting: type, identifier: "a", content: $0))
      }
    }
    #expect(sends.allSatisfy { $0.writes })
    let others: [DashboardEffect] = [
      .copyToClipboard("1"), .loadTheme(.next), .wake(atMilliseconds: 1), .rescan, .repaint, .quit,
    ]
    #expect(writing.allSatisfy { $0.writes })
    #expect(!others.contains { $0.writes })
  }

  @Test func aPasteIsNeverTakenForKeys() {
    var harness = Self.harness(readOnly: false)
    harness.send(.paste("Dy"))
    #expect(harness.effects.isEmpty)
    #expect(harness.state.overlay == nil)
  }

  @Test func theFooterShowsWritesDisabledAndSaysReadOnly() {
    var writable = Self.harness(readOnly: false)
    #expect(writable.shows("p pass") && writable.shows("d clear"))
    #expect(writable.role(of: "p pass") == "footer.key")
    writable.type("<Tab><Tab>")
    #expect(writable.shows("r replay"))

    var harness = Self.harness(readOnly: true)
    let footer = harness.screen.height - 1
    #expect(harness.lines[footer].hasPrefix(" read-only  "))
    #expect(harness.screen[footer, 1].role == "footer.key")
    // The writing keys are there, as help shows them: disabled, in a role of their own.
    #expect(harness.role(of: "p pass") == "footer.disabled")
    #expect(harness.role(of: "d clear") == "footer.disabled")
    #expect(harness.role(of: "? help") == "footer.key")
    harness.type("<Tab><Tab>")
    #expect(harness.role(of: "r replay") == "footer.disabled")
    #expect(harness.role(of: "f freeze") == "footer.key")
  }
}
