import Foundation
import Testing

@testable import ArchivedValues
@testable import KeyedArchive

@Suite struct FixtureGoldenTests {
  @Test func everyFixtureIsPresent() {
    #expect(fixtureNames.count == 46)
  }

  @Test(arguments: fixtureNames)
  func fixtureDecodesAsArchive(_ name: String) throws {
    let inspection = try KeyedArchiveInspector().inspect(try fixtureBytes(name))
    #expect(inspection.isArchive, "\(name): \(inspection.notArchiveReason?.description ?? "")")
    #expect(inspection.archiver == "NSKeyedArchiver")
    #expect(inspection.version == 100000)
    expectGolden(inspection.textTree(), named: name + ".txt")
    expectGolden(inspection.json() + "\n", named: name + ".json")
  }

  @Test func summariesOfEveryFixture() throws {
    var lines = [String]()
    for name in fixtureNames {
      let inspection = try KeyedArchiveInspector().inspect(try fixtureBytes(name))
      lines.append("\(name): \(inspection.summary(width: 100))")
    }
    expectGolden(lines.joined(separator: "\n") + "\n", named: "summaries.txt")
  }

  /// Every golden JSON rendering is valid JSON.
  @Test(arguments: fixtureNames)
  func jsonRenderingParses(_ name: String) throws {
    let inspection = try KeyedArchiveInspector().inspect(try fixtureBytes(name))
    let parsed = try JSONSerialization.jsonObject(with: Data(inspection.json().utf8))
    #expect(parsed is [String: Any])
  }
}
