import Dashboard
import MailboxModel
import Testing
import WormholeVocabulary

/// A running peer in a session with another, with an invitation waiting and a resource in flight.
private let busyPeer = PeerSnapshot(
  service: "chat", name: "alice", id: 0xa11c, pid: 11, found: ["bob#2b0b"], connected: ["bob#2b0b"],
  invitations: [PeerSnapshot.Invitation(peer: "dave#da0e")],
  resources: [
    PeerSnapshot.Resource(
      id: "a11c/1", name: "photo", isSending: true, peer: "bob#2b0b", bytes: 10, total: 100)
  ],
  controlSocketPath: "/h/peers/chat/a11c.control.sock")

/// A running peer in no session, with nothing waiting.
private let idlePeer = PeerSnapshot(service: "chat", name: "zed", id: 0x2ed, pid: 12)

/// A pair whose phone has a queued transfer.
private let desk = PairSnapshot(
  name: "desk",
  phone: PairSnapshot.Device(
    role: .phone, runningPID: 4242,
    queuedTransfers: [.init(id: 3, identifier: "photo", size: 20_480, time: 1_764_500_000_000)]),
  watch: PairSnapshot.Device(role: .watch))

/// Moves the tree's selection down to `node`.
private func select(_ node: TreeNodeID, in harness: inout DashboardHarness) {
  harness.type("g")
  for _ in 0..<harness.state.treeRowCount where harness.state.selection != node { harness.type("j") }
  #expect(harness.state.selection == node)
}

/// The footer's line: the frame's last.
private func footer(_ harness: DashboardHarness) -> String { harness.lines.last ?? "" }

/// The footer lists the keys that do something where the focus and the selection are, as help
/// and the keys table name them, and no key whose only answer there is "select …".
@Suite struct FooterKeysTests {
  @Test func uIsListedWhereAPairsDeviceOrAPeerCanTakeIt() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    #expect(!footer(harness).contains(" u "), "no pair and no peer: the form has no device to send to")
    harness.send(.pairs([desk]))
    #expect(footer(harness).contains("u push"), "\(harness)")
    harness.send(.resize(width: 80, height: 24))
    #expect(footer(harness).contains("u push"), "\(harness)")
    var peersOnly = DashboardHarness(mailboxes: ["button": .string("tap")])
    peersOnly.send(.peers([idlePeer]))
    #expect(footer(peersOnly).contains("u push"), "\(peersOnly)")
    peersOnly.type("<Tab><Tab>")
    #expect(footer(peersOnly).contains("u push"), "u applies in every pane: \(peersOnly)")
  }

  @Test func aDirectoryOffersClearAllAndAMailboxClear() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap"), "count": .integer(3)])
    select(.directory(group), in: &harness)
    #expect(footer(harness).contains("D clear all"), "\(harness)")
    #expect(!footer(harness).contains(" d "), "d on a directory only says to select a mailbox")
    harness.type("j")
    #expect(footer(harness).contains("d clear"), "\(harness)")
    #expect(!footer(harness).contains("D clear all"))
  }

  @Test func aPeerOffersItsOwnKeysOnlyWhereTheyAct() {
    var harness = DashboardHarness(width: 80, height: 24, mailboxes: ["button": .string("tap")])
    harness.send(.peers([busyPeer, idlePeer]))
    select(.peer(service: "chat", id: 0xa11c), in: &harness)
    let line = footer(harness)
    for entry in ["a accept", "x decline", "S send", "X disconnect", "C cancel"] {
      #expect(line.contains(entry), "\(entry) at 80 columns: \(harness)")
    }
    #expect(!line.contains("d clear"), "a peer holds no mailbox: \(harness)")
    select(.peer(service: "chat", id: 0x2ed), in: &harness)
    for key in ["a ", "x ", "S ", "X ", "C ", "d "] {
      #expect(!footer(harness).contains(" " + key), "\(key)on a peer with nothing to answer, send or cancel")
    }
    select(.peerService("chat"), in: &harness)
    #expect(!footer(harness).contains("X disconnect"), "a service row is not a peer: \(harness)")
    #expect(!footer(harness).contains("C cancel"))
  }

  @Test func aDeviceWithAQueuedTransferOffersToCancelIt() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.pairs([desk]))
    select(.device(pair: "desk", role: .phone), in: &harness)
    #expect(footer(harness).contains("d cancel"), "\(harness)")
    select(.device(pair: "desk", role: .watch), in: &harness)
    #expect(!footer(harness).contains(" d "), "nothing queued: \(harness)")
    select(.pair("desk"), in: &harness)
    #expect(!footer(harness).contains(" d "), "d on a pair says to select a device: \(harness)")
  }

  @Test func theContentsOfferTheirViewsKeysAndHistoryItsMark() {
    var harness = DashboardHarness(mailboxes: ["n": .integer(1)])
    harness.changeMailbox("n", to: .integer(2))
    harness.type("<Tab>")
    #expect(footer(harness).contains("Enter open"), "the tree view folds: \(harness)")
    #expect(footer(harness).contains("v view"))
    #expect(!footer(harness).contains("m mark"))
    harness.type("vvv")
    #expect(harness.state.contentsView == .history)
    #expect(footer(harness).contains("m mark"), "\(harness)")
    #expect(!footer(harness).contains("Enter open"), "Enter folds nothing in the history: \(harness)")
    var pairs = DashboardHarness(mailboxes: ["n": .integer(1)])
    pairs.send(.pairs([desk]))
    select(.pair("desk"), in: &pairs)
    pairs.type("<Tab>")
    #expect(!footer(pairs).contains("v view"), "a pair's contents have one view: \(pairs)")
    #expect(!footer(pairs).contains("r replay"), "a pair has no version to replay: \(pairs)")
  }

  @Test func theTrafficOffersReplayOnlyOverAnEntry() {
    var harness = DashboardHarness()
    harness.type("<Tab><Tab>")
    #expect(!footer(harness).contains("r replay"), "no traffic yet: \(harness)")
    harness.scan(["button": archive(.string("tap"))])
    let record = TrafficRecord(
      sequence: 1, milliseconds: harness.now, processIdentifier: 7, sender: "watch", transiting: "file",
      kind: .notify,
      identifier: "button", bytes: 0, outcome: .ok)
    harness.send(
      .modelEvents([.journalRecords(directory: group, [record], initial: false)], at: harness.now + 1))
    #expect(footer(harness).contains("r replay"), "\(harness)")
  }

  @Test func readOnlyShowsTheNewKeysDisabled() {
    var harness = DashboardHarness(
      width: 100, height: 30, readOnly: true, mailboxes: ["button": .string("tap")])
    harness.send(.pairs([desk]))
    #expect(footer(harness).contains("u push"), "\(harness)")
    #expect(harness.role(of: "u push") == "footer.disabled")
  }

  @Test func aShortLineLeavesOutWholeEntriesTheGeneralOnesFirst() {
    let entries = [
      FooterEntry(key: "?", word: "help", standing: .always),
      FooterEntry(key: "/", word: "filter", standing: .general),
      FooterEntry(key: "a", word: "accept", standing: .selection),
      FooterEntry(key: "s", word: "sort", standing: .general),
      FooterEntry(key: "X", word: "disconnect", standing: .selection),
    ]
    // Each takes its key, a space, its word and two spaces: 8, 10, 10, 8 and 14 columns, 50 in all.
    #expect(FooterEntry.fitting(entries, columns: 50) == entries)
    #expect(FooterEntry.fitting(entries, columns: 49).map(\.key) == ["?", "/", "a", "X"])
    #expect(FooterEntry.fitting(entries, columns: 41).map(\.key) == ["?", "a", "X"])
    #expect(FooterEntry.fitting(entries, columns: 31).map(\.key) == ["?", "a"])
    #expect(FooterEntry.fitting(entries, columns: 17).map(\.key) == ["?"])
    #expect(FooterEntry.fitting(entries, columns: 7).isEmpty)
  }

  @Test func atEightyColumnsEveryFooterEntryIsWhole() {
    var harness = DashboardHarness(width: 80, height: 24, mailboxes: ["button": .string("tap")])
    harness.send(.pairs([desk]))
    harness.send(.peers([busyPeer, idlePeer]))
    for _ in 0..<harness.state.treeRowCount {
      let line = footer(harness)
      let entries = harness.state.footerEntries.map { $0.key + " " + $0.word }
      let shown = line.split(separator: "  ").map { String($0.drop { $0 == " " }) }.filter { !$0.isEmpty }
      #expect(shown.allSatisfy(entries.contains), "\(shown) of \(entries)")
      #expect(shown.starts(with: ["? help", "q quit"]), "\(line)")
      harness.type("j")
    }
  }

  @Test func theSendKeysHintNamesAFilesBytes() {
    var harness = DashboardHarness(mailboxes: ["button": .string("tap")])
    harness.send(.peers([busyPeer]))
    select(.peer(service: "chat", id: 0xa11c), in: &harness)
    harness.type("S")
    let hint = harness.state.status?.text ?? ""
    #expect(hint.contains(":peer-send TO[,TO...] reliable|unreliable DATA"), "\(hint)")
    #expect(hint.contains("@FILE"), "\(hint)")
    #expect(hint.contains("16 MiB"), "\(hint)")
  }
}
