import Dashboard
import KeyedArchive
import MailboxModel
import SnapshotSupport
import TerminalInput
import TerminalScreen
import TerminalTheme
import Testing
import WormholeVocabulary

private let snapshots = snapshotDirectory()

/// A populated dashboard: a few mailboxes with history, traffic of every kind, a failure.
private func populated(width: Int, height: Int) -> DashboardHarness {
  var harness = DashboardHarness(
    width: width, height: height,
    mailboxes: [
      "button": .dictionary([
        .init(key: .string("tapped"), value: .string("play")),
        .init(key: .string("count"), value: .integer(1)),
      ]),
      "location": .dictionary([
        .init(key: .string("latitude"), value: .real(48.8566)),
        .init(key: .string("longitude"), value: .real(2.3522)),
      ]),
      "widget": .string("Now playing"),
      "日本語": .integer(7),
    ])
  for count in 2...4 {
    harness.changeMailbox(
      "button",
      to: .dictionary([
        .init(key: .string("tapped"), value: .string("pause")),
        .init(key: .string("count"), value: .integer(Int64(count))),
      ]))
  }
  let records: [TrafficRecord] = [
    TrafficRecord(
      sequence: 1, milliseconds: harness.now, processIdentifier: 4242, sender: "app", transiting: "file",
      kind: .pass,
      identifier: "widget", bytes: 231, outcome: .ok),
    TrafficRecord(
      sequence: 2, milliseconds: harness.now + 10, processIdentifier: 4243, sender: "extension",
      transiting: "coordinated-file", kind: .notify, identifier: "refresh", bytes: 0, outcome: .ok),
    TrafficRecord(
      sequence: 3, milliseconds: harness.now + 20, processIdentifier: 4242, sender: "app", transiting: "file",
      kind: .pass, identifier: "blocked", bytes: 0, outcome: .failed, error: "Is a directory"),
  ]
  harness.send(
    .modelEvents([.journalRecords(directory: group, records, initial: false)], at: harness.now + 30))
  harness.send(.clock(harness.now + 5_000))
  return harness
}

@Suite struct DashboardSnapshotTests {
  @Test(arguments: [(100, 30), (80, 24)])
  func screens(width: Int, height: Int) {
    let size = "\(width)x\(height)"
    expectSnapshot(
      DashboardHarness(width: width, height: height).screen, named: "empty-\(size)", in: snapshots)

    var harness = populated(width: width, height: height)
    expectSnapshot(harness.screen, named: "populated-\(size)", in: snapshots)
    harness.type("<Tab>vv")
    expectSnapshot(harness.screen, named: "hex-\(size)", in: snapshots)
    harness.type("v")
    expectSnapshot(harness.screen, named: "history-\(size)", in: snapshots)
    harness.type("v")
    expectSnapshot(harness.screen, named: "diff-\(size)", in: snapshots)
    harness.type("v<Tab>f")
    harness.changeMailbox("widget", to: .string("Paused"))
    expectSnapshot(harness.screen, named: "traffic-frozen-\(size)", in: snapshots)
    harness.type("f?")
    expectSnapshot(harness.screen, named: "help-\(size)", in: snapshots)
    harness.type("<Esc>p{\"a\":")
    expectSnapshot(harness.screen, named: "pass-form-error-\(size)", in: snapshots)
    harness.type("<Esc><S-Tab>gjd")
    expectSnapshot(harness.screen, named: "confirm-clear-\(size)", in: snapshots)
    harness.type("n<S-Tab>/^b")
    expectSnapshot(harness.screen, named: "filter-\(size)", in: snapshots)
  }

  @Test func tooSmall() {
    expectSnapshot(populated(width: 30, height: 10).screen, named: "too-small-30x10", in: snapshots)
  }

  @Test func hostileAndWideNames() {
    let harness = DashboardHarness(
      mailboxes: [
        "evil\u{1B}[2J\u{202E}name": .string("\u{1B}]0;title\u{7}"), "👨‍👩‍👧 family": .integer(1),
        "e\u{301}té": .integer(2),
        FileName(bytes: [0x62, 0x61, 0x64, 0xFF]): .integer(3), "مرحبا": .string("שלום"),
      ])
    expectSnapshot(harness.screen, named: "hostile-and-wide-names", in: snapshots)
  }

  /// How each role on the populated screen looks in every shipped theme: a theme change shows
  /// here, not in every screen above.
  @Test func themesStyleEveryRoleOnScreen() throws {
    let screen = populated(width: 100, height: 30).screen
    let roles = Set(screen.cells.map(\.role)).sorted()
    let catalog = ThemeCatalog(userDirectory: nil)
    var text = ""
    for name in ThemeCatalog.shippedNames.sorted() {
      let theme = try catalog.theme(name)
      text += "[\(name)]\n"
      for role in roles { text += "\(role.name) = \(theme.style(for: role))\n" }
    }
    expectSnapshot(text, named: "theme-roles.txt", in: snapshots)
  }
}
