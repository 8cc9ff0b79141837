import Dashboard
import KeyedArchive
import MailboxModel
import MailboxWatcher
import TerminalInput
import Testing
import WormholeVocabulary

/// The dashboard decodes nothing itself: it asks for the versions its contents pane shows with
/// a decode effect, once each, says "decoding …" until the decoding arrives, keeps a few, and
/// drops what arrives for a version no longer wanted.
@Suite struct DecodeEffectTests {
  /// A harness whose decode effects wait for the test to answer them.
  static func harness(_ mailboxes: [FileName: ArchivedValue], readOnly: Bool = false) -> DashboardHarness {
    var harness = DashboardHarness(readOnly: readOnly)
    harness.answersDecodes = false
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(group),
          .directoryScanned(group, mailboxes: mailboxes.mapValues(archive), initial: true),
        ],
        at: harness.now))
    return harness
  }

  /// The serials of the decode effects collected so far, in order.
  static func decodeSerials(_ effects: [DashboardEffect]) -> [UInt64] {
    effects.compactMap {
      guard case .decode(_, _, let serial) = $0 else { return nil }
      return serial
    }
  }

  static func answer(_ harness: inout DashboardHarness, _ identifier: FileName) throws {
    let version = try #require(harness.state.model.mailbox(identifier, in: group)?.current)
    harness.send(.decoded(serial: version.serial, DecodedMessage(decoding: version)))
  }

  @Test func aShownVersionIsAskedForOnceAndSaysDecodingUntilItArrives() throws {
    var harness = Self.harness(["alpha": .array([.integer(7), .integer(8)])])
    let version = try #require(harness.state.selectedMailbox?.current)
    #expect(Self.decodeSerials(harness.effects) == [version.serial])
    #expect(harness.shows("decoding …"))
    #expect(!harness.shows("[0]"))
    // Frames, time, a resize and keys that keep the selection ask for nothing more.
    for _ in 0..<3 { _ = harness.screen }
    harness.send(.clock(harness.now + 1_000))
    harness.send(.resize(width: 110, height: 32))
    harness.type("<Tab><S-Tab>")
    #expect(Self.decodeSerials(harness.effects) == [version.serial])
    try Self.answer(&harness, "alpha")
    #expect(harness.shows("[0]"))
    #expect(harness.shows("[1]"))
    #expect(!harness.shows("decoding …"))
    harness.type("<Tab><S-Tab>")
    #expect(Self.decodeSerials(harness.effects) == [version.serial])
  }

  @Test func aDecodingForAVersionNoLongerWantedIsDroppedAndAskedForAgainOnReturn() throws {
    var harness = Self.harness(["alpha": .integer(1), "beta": .integer(2)])
    let alpha = try #require(harness.state.model.mailbox("alpha", in: group)?.current)
    let beta = try #require(harness.state.model.mailbox("beta", in: group)?.current)
    #expect(harness.state.selectedMailbox?.identifier == "alpha")
    harness.type("j")
    #expect(Self.decodeSerials(harness.effects) == [alpha.serial, beta.serial])
    try Self.answer(&harness, "alpha")
    #expect(harness.state.decodedVersions.message(alpha.serial) == nil)
    #expect(harness.state.decodedVersions.requested == [beta.serial])
    harness.type("k")
    #expect(Self.decodeSerials(harness.effects) == [alpha.serial, beta.serial, alpha.serial])
    #expect(harness.shows("decoding …"))
  }

  @Test func aSkippedDecodeIsAskedForAgainWhenItsVersionIsWantedAgain() throws {
    var harness = Self.harness(["alpha": .integer(1), "beta": .integer(2)])
    let alpha = try #require(harness.state.model.mailbox("alpha", in: group)?.current)
    let beta = try #require(harness.state.model.mailbox("beta", in: group)?.current)
    harness.type("j")
    #expect(harness.state.decodedVersions.wanted == [beta.serial])
    harness.send(.decodeSkipped(serial: alpha.serial))
    #expect(harness.state.decodedVersions.requested == [beta.serial])
    // A skip for a version still wanted asks for it again at once.
    harness.send(.decodeSkipped(serial: beta.serial))
    #expect(Self.decodeSerials(harness.effects) == [alpha.serial, beta.serial, beta.serial])
    harness.type("k")
    #expect(Self.decodeSerials(harness.effects) == [alpha.serial, beta.serial, beta.serial, alpha.serial])
  }

  @Test func aChangedMailboxAsksForItsNewVersionAndTheSparklineForEveryKeptOne() throws {
    var harness = Self.harness(["alpha": .integer(1)])
    try Self.answer(&harness, "alpha")
    harness.changeMailbox("alpha", to: .integer(5))
    harness.changeMailbox("alpha", to: .integer(9))
    let mailbox = try #require(harness.state.selectedMailbox)
    let serials = Self.decodeSerials(harness.effects)
    #expect(Set(serials) == Set(([mailbox.current].compactMap(\.self) + mailbox.history).map(\.serial)))
    #expect(serials.count == Set(serials).count, "each version is asked for once: \(serials)")
    // The sparkline waits for every version it spans, then shows.
    #expect(harness.state.sparklineSeries() == nil)
    for version in [mailbox.current].compactMap(\.self) + mailbox.history {
      harness.send(.decoded(serial: version.serial, DecodedMessage(decoding: version)))
    }
    #expect(harness.state.sparklineSeries()?.values == [1, 5, 9])
  }

  @Test func theCacheKeepsWhatIsWantedAndAFewMore() {
    var mailboxes: [FileName: ArchivedValue] = [:]
    for index in 0..<20 { mailboxes[FileName("m\(index)")] = .integer(Int64(index)) }
    var harness = DashboardHarness(mailboxes: mailboxes)
    for _ in 0..<20 { harness.type("j") }
    #expect(harness.decodesPerformed >= 20)
    #expect(harness.state.decodedVersions.count <= 1 + DecodedVersions.spareCapacity)
    // Back over the last few: kept, not decoded again.
    let performed = harness.decodesPerformed
    harness.type("kk")
    #expect(harness.decodesPerformed == performed)
  }

  @Test func readOnlyStillDecodes() throws {
    var harness = Self.harness(["alpha": .integer(3)], readOnly: true)
    #expect(Self.decodeSerials(harness.effects).count == 1)
    try Self.answer(&harness, "alpha")
    #expect(!harness.shows("decoding …"))
  }

  @Test func copyWhileDecodingCopiesNothingAndSaysWhy() throws {
    var harness = Self.harness(["alpha": .string("hello")])
    harness.type("y")
    #expect(!harness.effects.contains { if case .copyToClipboard = $0 { true } else { false } })
    #expect(harness.shows("still being decoded"))
    try Self.answer(&harness, "alpha")
    harness.type("y")
    #expect(harness.effects.contains(.copyToClipboard("\"hello\"")))
  }

  @Test func aVersionWhoseBytesWereNotKeptNeedsNoDecoding() {
    var harness = DashboardHarness()
    harness.answersDecodes = false
    harness.send(
      .modelEvents(
        [
          .directoryAppeared(group),
          .directoryScanned(
            group, mailboxes: ["huge": .file(bytes: nil, size: 2_000_000, modifiedNanoseconds: 1)],
            initial: true),
        ], at: harness.now))
    #expect(Self.decodeSerials(harness.effects).isEmpty)
    #expect(harness.shows("too large to show"))
  }
}
