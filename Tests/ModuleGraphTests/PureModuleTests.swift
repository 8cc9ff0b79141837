import Foundation
import Testing

/// The rule of the module graph, made checkable: the pure modules and every module they depend on
/// (declared in Package.swift or imported by a source file) import neither Foundation, Glibc nor
/// Dispatch, so none of them can do I/O or start a thread.
@Suite struct PureModuleTests {
  /// The modules that must stay pure; their dependencies are found, not listed.
  static let pureModules = [
    "ArchivedValues", "WormholeVocabulary", "MailboxModel", "Dashboard", "PatternMatching", "DeviceSession",
    "DeviceRouting", "PeerSession", "FleetProtocol", "FleetModel",
  ]

  /// Modules that bring I/O or threads with them.
  static let forbidden: Set<String> = [
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Dispatch",
  ]

  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  @Test func pureModulesAndTheirDependenciesImportNoFoundationGlibcOrDispatch() throws {
    let declared = try Self.declaredDependencies()
    var offences: [String] = []
    var checked: Set<String> = []
    var pending = Self.pureModules
    while let module = pending.popLast() {
      guard checked.insert(module).inserted else { continue }
      if Self.forbidden.contains(module) {
        offences.append("a pure module depends on \(module)")
        continue
      }
      let directory = Self.packageRoot.appendingPathComponent("Sources").appendingPathComponent(module)
      // Modules outside Sources (the standard library's, Synchronization) have no sources here.
      guard FileManager.default.fileExists(atPath: directory.path) else { continue }
      pending.append(contentsOf: declared[module] ?? [])
      for file in try Self.swiftFiles(in: directory) {
        for imported in try Self.imports(in: file) {
          if Self.forbidden.contains(imported) {
            offences.append("\(module)/\(file.lastPathComponent) imports \(imported)")
          }
          pending.append(imported)
        }
      }
    }
    #expect(offences.isEmpty, "pure modules must not import these:\n\(offences.joined(separator: "\n"))")
    // The check reached the layers below the views, not just the named modules.
    #expect(
      checked.isSuperset(of: ["ArchivedValues", "PropertyList", "TerminalScreen", "WormholeVocabulary"]))
  }

  @Test func theCheckSeesEveryFormOfImport() {
    let source = """
      import Foundation
      @_exported import Glibc
      import struct Dispatch.DispatchQueue
      @preconcurrency import FoundationEssentials
        import TerminalScreen
      // import Musl
      """
    #expect(
      Self.imports(inSource: source) == [
        "Foundation", "Glibc", "Dispatch", "FoundationEssentials", "TerminalScreen",
      ])
  }

  /// Every `.swift` file under `directory`, however deep.
  static func swiftFiles(in directory: URL) throws -> [URL] {
    guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
      return []
    }
    return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
  }

  static func imports(in file: URL) throws -> [String] {
    imports(inSource: try String(contentsOf: file, encoding: .utf8))
  }

  /// The modules a source imports, in any spelling (`@_exported`, `@preconcurrency`, `import
  /// struct Module.Type`), conditional or not.
  static func imports(inSource source: String) -> [String] {
    source.split(separator: "\n").compactMap { line in
      var words = line.split(separator: " ").map(String.init)
      while let first = words.first, first.hasPrefix("@") { words.removeFirst() }
      guard words.first == "import", words.count >= 2 else { return nil }
      let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
      let path = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
      return String(path.split(separator: ".")[0])
    }
  }

  /// Each target's declared dependencies, read from Package.swift.
  static func declaredDependencies() throws -> [String: [String]] {
    let manifest = try String(
      contentsOf: packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    var result: [String: [String]] = [:]
    // A library target's declaration starts at `.target(` and ends where the next declaration
    // starts; its name is its first string, its dependencies the strings in the list after
    // `dependencies:`. (Pure modules are library targets.)
    for piece in manifest.components(separatedBy: ".target(").dropFirst() {
      let declaration = piece.components(separatedBy: ".testTarget(")[0]
        .components(separatedBy: ".executableTarget(")[0].components(separatedBy: ".systemLibrary(")[0]
      guard let name = quoted(in: declaration).first else { continue }
      guard let list = declaration.components(separatedBy: "dependencies:").dropFirst().first,
        let end = list.firstIndex(of: "]")
      else {
        result[name] = []
        continue
      }
      result[name] = quoted(in: String(list[..<end]))
    }
    return result
  }

  /// The double-quoted strings in `text`, in order.
  static func quoted(in text: String) -> [String] {
    text.components(separatedBy: "\"").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
  }
}
