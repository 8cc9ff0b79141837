import Dashboard
import DashboardRuntime
import MailboxModel
import MailboxWatcher
import Testing
import WormholeVocabulary

/// A decode job decodes the version it captured, unless the version was no longer wanted
/// when its turn came.
@Suite struct EffectJobTests {
  static let group: FileName = "/w/group"

  static func model() -> ModelState {
    var model = ModelState()
    for event in initialScan(Self.group, ["alpha": .array([.integer(1)])]) { _ = model.apply(event, at: 1) }
    return model
  }

  @Test func aDecodeJobReportsTheDecodingOrASkip() throws {
    let model = Self.model()
    let serial = try #require(model.mailbox("alpha", in: Self.group)?.current?.serial)
    var job = EffectJob(
      effect: .decode(directory: Self.group, identifier: "alpha", serial: serial), model: model)
    #expect(!job.writes)
    guard case .decoded(serial, .message(let inspection)) = job.perform(with: MailboxOperations()) else {
      Issue.record("expected the decoding of \(serial)")
      return
    }
    #expect(inspection.root.json() == "[1]")
    job.isStillWanted = { $0 != serial }
    guard case .decodeSkipped(serial) = job.perform(with: MailboxOperations()) else {
      Issue.record("expected a skip of \(serial)")
      return
    }
  }

  @Test func aDecodeOfAVersionNoLongerKeptSaysSo() {
    let job = EffectJob(
      effect: .decode(directory: Self.group, identifier: "alpha", serial: 99), model: Self.model())
    guard case .decoded(99, .undecodable(let reason)) = job.perform(with: MailboxOperations()) else {
      Issue.record("expected a reason")
      return
    }
    #expect(reason.contains("no longer kept"))
  }
}
