import Dashboard
import KeyedArchive
import MailboxModel
import TerminalInput
import Testing
import WormholeVocabulary

/// Replay keeps what it replays as it was: its transiting type, its version (or says which
/// kept one is nearest), and labels versions by when they were written.
@Suite struct ReplayTests {
  private func replayForm(_ harness: DashboardHarness) -> ReplayForm? {
    guard case .replay(let form)? = harness.state.overlay else { return nil }
    return form
  }

  /// A notification journaled as session-message keeps its type in the form, but a session
  /// type sends a message and a notification has none: the form says so and sends nothing
  /// until another type is chosen.
  @Test func anEntryJournaledWithASessionTypeKeepsItAndANotificationIsNotSentAsOne() throws {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    let record = TrafficRecord(
      sequence: 1, milliseconds: harness.now, processIdentifier: 7, sender: "watch",
      transiting: "session-message", kind: .notify, identifier: "a", bytes: 0, outcome: .ok)
    harness.send(
      .modelEvents([.journalRecords(directory: group, [record], initial: false)], at: harness.now + 1))
    harness.send(
      .pairs([PairSnapshot(name: "desk", home: "/h", phone: .init(role: .phone), watch: .init(role: .watch))])
    )
    harness.effects = []
    harness.type("<Tab><Tab>r")
    var form = try #require(replayForm(harness))
    #expect(form.transiting == .sessionMessage)
    #expect(harness.shows("◂ session-message ▸"))
    #expect(harness.shows("carries no message"), "\(harness)")
    harness.type("<Enter>")
    #expect(harness.effects.isEmpty)
    #expect(replayForm(harness) != nil)
    harness.type("<Tab>")
    harness.send(.key(.right))  // session-file
    harness.send(.key(.right))  // file, the first type, again
    form = try #require(replayForm(harness))
    #expect(form.transiting == .file)
    harness.type("<Enter>")
    #expect(
      harness.effects.last == .replayEntry(entry: 1, toDirectory: group, toIdentifier: "a", transiting: .file)
    )
  }

  @Test func anUnknownJournaledTypeIsSaidNotHidden() throws {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])
    let record = TrafficRecord(
      sequence: 1, milliseconds: harness.now, processIdentifier: 7, sender: "x", transiting: "carrier-pigeon",
      kind: .notify, identifier: "a", bytes: 0, outcome: .ok)
    harness.send(
      .modelEvents([.journalRecords(directory: group, [record], initial: false)], at: harness.now + 1))
    harness.type("<Tab><Tab>r")
    let form = try #require(replayForm(harness))
    #expect(form.note?.contains("carrier-pigeon") == true)
    #expect(harness.shows("a type this build does not know"))
  }

  /// A dashboard whose mailboxes keep two earlier versions; "a" changed four times after start,
  /// so the first two versions are gone.
  static func evicting() -> DashboardHarness {
    var configuration = ModelConfiguration()
    configuration.historyDepth = 2
    var harness = DashboardHarness()
    harness.state = DashboardState(
      model: ModelState(configuration: configuration), rootPaths: [home],
      width: 100, height: 30,
      now: harness.now)
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(group),
          .directoryScanned(group, mailboxes: ["a": archive(.integer(1))], initial: true),
        ],
        at: harness.now))
    for value in 2...5 { harness.changeMailbox("a", to: .integer(Int64(value))) }
    harness.send(.clock(harness.now + 5_000))
    harness.effects = []
    return harness
  }

  @Test func replayingAnEntryWhoseVersionWasEvictedOffersTheNearestKeptOne() throws {
    var harness = Self.evicting()
    let first = try #require(harness.state.model.traffic.first)
    #expect(harness.state.model.version(of: first) == nil)
    let kept = try #require(harness.state.model.mailbox("a", in: group)).history
    #expect(kept.count == 2)
    harness.type("<Tab><Tab>gr")
    let form = try #require(replayForm(harness))
    #expect(form.source == .version(directory: group, identifier: "a", serial: kept[0].serial))
    #expect(form.note?.contains("traffic entry \(first.id)'s version is no longer kept") == true)
    #expect(form.note?.contains("keeps 2 earlier versions") == true)
    #expect(harness.state.status?.text.hasPrefix("replay: traffic entry") == true)
    harness.type("<Enter>")
    guard case .replayVersion(_, _, let serial, _, _, _)? = harness.effects.last else {
      Issue.record("Enter did not replay the offered version: \(harness.effects)")
      return
    }
    #expect(serial == kept[0].serial)
  }

  @Test func aFailedReplayLeadsWithItsGistAndNamesTheNearestKeptVersion() throws {
    var harness = Self.evicting()
    let first = try #require(harness.state.model.traffic.first)
    let effect = DashboardEffect.replayEntry(
      entry: first.id, toDirectory: group, toIdentifier: "b", transiting: .file)
    harness.send(
      .effectFinished(.failed(effect, "the message of traffic entry \(first.id) is no longer kept")))
    let status = try #require(harness.state.status)
    #expect(status.isError)
    #expect(
      status.text.hasPrefix("replay failed: the message of traffic entry \(first.id) is no longer kept"))
    #expect(status.text.contains("(replay of traffic entry \(first.id) to b (file))"))
    let kept = try #require(harness.state.model.mailbox("a", in: group)).history
    #expect(status.text.contains("nearest kept: version \(kept[0].serial)"))

    harness.send(.effectFinished(.done(.clear(directory: group, identifier: "a"))))
    #expect(harness.state.status?.text == "cleared a")
  }

  @Test func theFormLabelsAVersionByItsModificationTime() throws {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])  // modified at 00:00:01 UTC
    harness.type("<Tab>r")
    let form = try #require(replayForm(harness))
    #expect(form.title == "Replay the version modified at 00:00:01.000 of a")
  }

  @Test func helpSaysHowManyVersionsAMailboxKeeps() {
    var harness = DashboardHarness(width: 120, height: 120)
    harness.type("?")
    #expect(harness.shows("each mailbox keeps its current version and 64 earlier ones"))
    var evicting = Self.evicting()
    evicting.state = DashboardState(
      model: evicting.state.model, rootPaths: [home], width: 120, height: 120, now: evicting.now)
    evicting.type("?")
    #expect(evicting.shows("each mailbox keeps its current version and 2 earlier ones"))
  }
}
