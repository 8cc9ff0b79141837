import Foundation
import TerminalScreen
import Testing

@testable import ArchivedValues
@testable import KeyedArchive

/// The fuzzer's seed corpus (and its findings, named `finding-…`) goes through every rendering as
/// a regression test, so a fixed crash stays fixed without running the fuzzer.
@Suite struct FuzzCorpusTests {
  static let corpus = testsDirectory.deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

  static var seeds: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).sorted()
  }

  @Test func corpusIsPresent() {
    #expect(Self.seeds.count >= 8)
  }

  @Test(arguments: seeds)
  func seedIsShown(_ name: String) throws {
    let bytes = [UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent(name)))
    let inspection = try KeyedArchiveInspector().inspect(bytes)
    #expect(!inspection.textTree().isEmpty)
    #expect(try JSONSerialization.jsonObject(with: Data(inspection.json().utf8)) is [String: Any])
    #expect(TerminalWidth.columns(of: inspection.summary(width: 30)) <= 30)
    // Fuzzer findings (`finding-…`) only need to be shown without crashing or leaking.
    if name.hasPrefix("finding-") { return }
    if name.hasPrefix("plain") || name.hasPrefix("unicode") {
      #expect(!inspection.isArchive)
    } else {
      #expect(inspection.isArchive, "\(name): \(inspection.notArchiveReason.map { "\($0)" } ?? "")")
    }
  }
}
