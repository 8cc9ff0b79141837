import Foundation
import Testing

@testable import TerminalScreen

/// `TerminalScreen` (with ``TerminalWidth``, the one width table) imports nothing but Swift, so
/// that every pure module, the inspector's renderers among them, can depend on it.
@Suite struct TerminalScreenDependencyTests {
  /// The module's own sources, beside this test's directory.
  static let sourceDirectory: String = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
    return path + "/Sources/TerminalScreen"
  }()

  @Test func noSourceFileImportsAnything() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.sourceDirectory)
      .filter { $0.hasSuffix(".swift") }.map { Self.sourceDirectory + "/" + $0 }
    #expect(files.contains { $0.hasSuffix("/TerminalWidth.swift") }, "\(files)")
    for file in files {
      let imports = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").filter { line in
        let trimmed = line.drop { $0 == " " }
        return trimmed.hasPrefix("import ") || trimmed.hasPrefix("@_exported")
          || trimmed.hasPrefix("@testable import")
      }
      #expect(imports.isEmpty, "\(file) imports \(imports)")
    }
  }

  /// The inspector's truncation (`Format.truncated` in KeyedArchive) has the same form here.
  @Test func widthFunctionsThePureModulesNeed() {
    #expect(TerminalWidth.columns(of: "漢字ab") == 6)
    #expect(TerminalWidth.columns(of: "👨‍👩‍👧") == 2)
    #expect(TerminalWidth.truncated("漢字abc", toColumns: 5) == "漢字…")
    #expect(TerminalWidth.padded("ab", toColumns: 4) == "ab  ")
  }
}
