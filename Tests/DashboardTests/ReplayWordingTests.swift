import Dashboard
import MailboxModel
import Testing
import WormholeVocabulary

/// What replay says of a version: a version's serial is unique in the model, not its number in
/// its mailbox ("version 2 of a" for a mailbox of one version was wrong), so versions are named
/// by when they were written, as the form's title does.
@Suite struct ReplayWordingTests {
  @Test func aReplayedVersionIsNamedByItsModificationTimeNotItsSerial() throws {
    var harness = DashboardHarness(mailboxes: ["a": .integer(1)])  // modified at 00:00:01 UTC
    let version = try #require(harness.state.model.mailbox("a", in: group)?.current)
    let effect = DashboardEffect.replayVersion(
      directory: group, identifier: "a", serial: version.serial, toDirectory: group, toIdentifier: "b",
      transiting: .file)
    harness.send(.effectFinished(.done(effect)))
    #expect(harness.state.status?.text == "replayed the version modified at 00:00:01.000 of a to b (file)")
    harness.send(.effectFinished(.failed(effect, "no room")))
    let failed = try #require(harness.state.status?.text)
    #expect(!failed.contains("version \(version.serial) of"), "\(failed)")
    #expect(failed.contains("replay of a kept version of a to b (file)"), "\(failed)")
  }
}
