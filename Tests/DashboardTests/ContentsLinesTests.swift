import KeyedArchive
import MailboxModel
import Testing
import WormholeVocabulary

@testable import Dashboard

/// The contents pane's lines built from explicit inputs: a model, a selection and the pane's
/// state, with no dashboard around them.
@Suite struct ContentsLinesTests {
  static func model() -> ModelState {
    var model = ModelState()
    _ = model.apply(.directoryAppeared(group), at: 1)
    _ = model.apply(.directoryScanned(group, mailboxes: ["a": archive(.integer(1))], initial: true), at: 1)
    _ = model.apply(.mailboxChanged(directory: group, identifier: "a", archive(.integer(2))), at: 2_000)
    return model
  }

  static func lines(
    _ selection: TreeNodeID?, pane: ContentsPaneState = ContentsPaneState(), counts: [FileName: Int] = [:]
  ) -> ContentsLines {
    ContentsLines(
      model: model(), selection: selection, contentsPane: pane, presentCounts: counts, width: 100,
      height: 30, now: 3_000)
  }

  static func texts(_ lines: [ContentLine]) -> [String] {
    lines.map { $0.pieces.map(\.text).joined() }
  }

  @Test func withoutASelectionItSaysNothingWasFound() {
    #expect(Self.texts(Self.lines(nil).lines()) == ["Nothing here yet: no wormhole directory was found."])
  }

  @Test func aDirectoryShowsTheCountsItIsGivenNotACountOfItsOwn() {
    let texts = Self.texts(Self.lines(.directory(group), counts: [group: 7]).lines())
    #expect(texts.contains { $0.hasPrefix("mailboxes  7 present") }, "\(texts)")
  }

  @Test func theHistoryViewListsTheVersionsNewestFirstWithTheMarkedOne() {
    let selection = TreeNodeID.mailbox(directory: group, identifier: "a")
    let versions = Self.lines(selection).selectedVersions
    #expect(versions.count == 2)
    var pane = ContentsPaneState()
    for _ in 0..<3 { pane.update(.nextView) }
    pane.update(.toggleMark(serial: versions[1].serial))
    let texts = Self.texts(Self.lines(selection, pane: pane).lines())
    #expect(texts.count == 2)
    #expect(texts[0].hasPrefix("now "))
    #expect(texts[1].hasPrefix("* "))
    #expect(Self.lines(selection, pane: pane).versionToReplay?.serial == versions[0].serial)
  }
}
