import Foundation
import PropertyList
import Testing

@testable import ArchivedValues
@testable import KeyedArchive

/// The archives we write must read back exactly with Apple's format readers: Foundation's
/// `NSKeyedUnarchiver` and Python's `plistlib`.
@Suite struct KeyedArchiveEncoderTests {
  static let message = ArchivedValue.dictionary([
    ArchivedEntry(key: .string("buttonNumber"), value: .integer(1)),
    ArchivedEntry(key: .string("title"), value: .string("héllo 😀")),
    ArchivedEntry(
      key: .string("flags"), value: .array([.boolean(true), .boolean(false), .real(2.5), .null])),
    ArchivedEntry(key: .string("when"), value: .date(ArchiveDate(secondsSince2001: 1000.25))),
    ArchivedEntry(key: .string("bytes"), value: .data([0xDE, 0xAD])),
    ArchivedEntry(
      key: .string("nested"),
      value: .dictionary([ArchivedEntry(key: .string("$null"), value: .string("$null"))])),
  ])

  @Test func foundationUnarchiverReadsOurArchive() throws {
    let data = try KeyedArchiveEncoder().encode(Self.message)
    let root = try #require(try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(data) as? NSDictionary)
    #expect((root["buttonNumber"] as? NSNumber)?.intValue == 1)
    #expect(root["title"] as? String == "héllo 😀")
    let flags = try #require(root["flags"] as? [Any])
    #expect(flags[0] as? Bool == true)
    #expect(flags[1] as? Bool == false)
    #expect((flags[2] as? NSNumber)?.doubleValue == 2.5)
    #expect(flags[3] is NSNull)
    #expect((root["when"] as? Date)?.timeIntervalSinceReferenceDate == 1000.25)
    #expect(root["bytes"] as? Data == Data([0xDE, 0xAD]))
    #expect((root["nested"] as? NSDictionary)?["$null"] as? String == "$null")
  }

  @Test func pythonPlistlibReadsOurArchive() throws {
    let data = try KeyedArchiveEncoder().encode(Self.message)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("encoder-\(UUID()).archive")
    try data.write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    // A deliberately small resolver: enough for the classes the encoder writes.
    let script = """
      import plistlib, json, sys
      p = plistlib.load(open(sys.argv[1], 'rb'))
      assert p['$archiver'] == 'NSKeyedArchiver' and p['$version'] == 100000
      objs = p['$objects']
      assert objs[0] == '$null'
      def r(u):
          o = objs[u.data]
          if not isinstance(o, dict): return o
          cls = objs[o['$class'].data]['$classname']
          if cls == 'NSDictionary': return {r(k): r(v) for k, v in zip(o['NS.keys'], o['NS.objects'])}
          if cls == 'NSArray': return [r(v) for v in o['NS.objects']]
          if cls == 'NSNull': return None
          if cls == 'NSDate': return {'date': o['NS.time']}
          if cls == 'NSString': return o['NS.string']
          raise Exception(cls)
      def enc(v):
          if isinstance(v, bytes): return {'data': v.hex()}
          raise TypeError(v)
      print(json.dumps(r(p['$top']['root']), default=enc, sort_keys=True, ensure_ascii=False))
      """
    let output = try runPython(script, arguments: [file.path])
    #expect(
      output == """
        {"buttonNumber": 1, "bytes": {"data": "dead"}, "flags": [true, false, 2.5, null], \
        "nested": {"$null": "$null"}, "title": "héllo 😀", "when": {"date": 1000.25}}

        """)
  }

  @Test func unknownClassesAreWrittenWithTheirChainAndFields() throws {
    let measurement = ArchivedValue.object(
      ArchivedObject(
        className: "NSMeasurement", classChain: ["NSMeasurement", "NSObject"],
        fields: [
          ArchivedField(key: "NS.value", value: .real(3)),
          ArchivedField(key: "NS.unit", value: .string("m")),
        ]))
    let plist = try PropertyListReader().read(try KeyedArchiveEncoder().encodeBytes(measurement)).root
    guard case .array(let objects)? = plist["$objects"] else {
      Issue.record("no $objects")
      return
    }
    let root = try #require(objects.count > 1 ? objects[1] : nil)
    #expect(root["NS.value"] == .real(3))
    guard case .uid(let unit)? = root["NS.unit"], case .uid(let classReference)? = root["$class"] else {
      Issue.record("references missing in \(root)")
      return
    }
    #expect(objects[Int(unit)] == .string("m"))
    #expect(
      objects[Int(classReference)]["$classes"] == .array([.string("NSMeasurement"), .string("NSObject")]))
  }

  @Test func sharedClassesAndScalarsAreStoredOnce() throws {
    let row = ArchivedValue.dictionary([ArchivedEntry(key: .string("title"), value: .string("same"))])
    let one = try PropertyListReader().read(try KeyedArchiveEncoder().encodeBytes(.array([row]))).root
    let many = try PropertyListReader().read(
      try KeyedArchiveEncoder().encodeBytes(.array(Array(repeating: row, count: 100)))
    ).root
    guard case .array(let few)? = one["$objects"], case .array(let lots)? = many["$objects"] else {
      Issue.record("no $objects")
      return
    }
    // Each further row adds its own dictionary object and nothing else.
    #expect(lots.count == few.count + 99)
  }

  @Test func nestingPastTheLimitIsRefused() {
    var value = ArchivedValue.array([])
    for _ in 0..<20 { value = .array([value]) }
    #expect(throws: KeyedArchiveEncodingError.nestingTooDeep(limit: 10)) {
      try KeyedArchiveEncoder(maximumDepth: 10).encode(value)
    }
  }
}

/// Runs `python3 -c script arguments…` and returns its standard output; throws on a non-zero exit.
func runPython(_ script: String, arguments: [String]) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["python3", "-c", script] + arguments
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  let data = output.fileHandleForReading.readDataToEndOfFile()
  let errorData = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw PythonFailure(message: String(decoding: errorData, as: UTF8.self))
  }
  return String(decoding: data, as: UTF8.self)
}

struct PythonFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { "python3 failed: \(message)" }
}

@Suite struct InspectorEscapingTests {
  /// The inspector's renderings escape what every other display does (one definition).
  @Test func textTreesEscapeLineSeparatorsAndDirectionMarks() throws {
    let archive = try KeyedArchiveEncoder().encode(.string("a\u{2028}b\u{200e}c\u{1b}d"))
    let tree = try KeyedArchiveInspector().inspect(archive).textTree()
    #expect(tree.contains(#""a\u{2028}b\u{200e}c\u{1b}d""#), "\(tree)")
    #expect(!tree.unicodeScalars.contains { DisplayText.needsEscape($0) && $0 != "\n" })
  }
}

@Suite struct InspectorJSONEscapingTests {
  /// JSON output escapes the same set as the text displays, as \uXXXX, and stays valid JSON.
  @Test func jsonEscapesDirectionMarksAndReadsBackExactly() throws {
    let text = "a\u{200e}b\u{61c}c\u{2029}d"
    let json = try KeyedArchiveInspector().inspect(try KeyedArchiveEncoder().encode(.string(text))).root
      .json()
    #expect(json == #""a\u200eb\u061cc\u2029d""#)
    #expect(
      try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) as? String == text)
  }
}
