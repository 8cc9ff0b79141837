import KeyedArchive
import Testing
import WormholeVocabulary

/// The pure layers start no thread of their own, so what they do with deep values must fit
/// whatever stack their caller has: the renderers and the JSON parser do not recurse.
@Suite struct RenderingStackTests {
  /// Deeper than any decoder limit: only a renderer that does not recurse can show it.
  static let depth = 5_000

  static func nested(_ depth: Int) -> ArchivedValue {
    var value = ArchivedValue.string("bottom")
    for level in 0..<depth {
      switch level % 4 {
      case 0: value = .array([value, .integer(Int64(level))])
      case 1: value = .dictionary([ArchivedEntry(key: .string("k"), value: value)])
      case 2:
        value = .object(
          ArchivedObject(
            className: "Box", classChain: ["Box", "NSObject"], fields: [ArchivedField(key: "v", value: value)]
          ))
      default: value = .shared(ArchivedSharedValue(id: UInt64(level), value: value))
      }
    }
    return value
  }

  // Values are made and torn down on the test's own thread: releasing a value recurses too (in
  // the Swift runtime), which the decoder's nesting limit keeps within any stack.
  @Test func renderersShowAnyDepthOnASmallStack() {
    let value = Self.nested(Self.depth)
    let sizes = onSmallStack { [value.textTree().count, value.json().count, value.summary(width: 80).count] }
    #expect(sizes.map { $0.allSatisfy { $0 > 0 } } == true)
    let text = value.textTree()
    #expect(text.contains("\"bottom\""))
    #expect(text.split(separator: "\n").count > Self.depth)
  }

  @Test func theJSONParserReadsDeepTextOnASmallStack() {
    let depth = 3_000
    let text = String(repeating: "{\"k\": [ ", count: depth) + "1" + String(repeating: " ] }", count: depth)
    let parsed = onSmallStack { try? JSONParser(maximumDepth: 2 * depth).parse(text) }
    #expect(parsed.flatMap { $0 } != nil)
  }

  @Test func theJSONParserReadsEmptyContainersAndSpaceAsBefore() throws {
    let value = try JSONParser().parse(
      " { \"a\" : [ ] , \"b\" : { } , \"c\" : [ 1 , { \"d\" : null } ] , \"a\": true } ")
    #expect(
      value
        == .dictionary([
          ArchivedEntry(key: .string("a"), value: .boolean(true)),
          ArchivedEntry(key: .string("b"), value: .dictionary([])),
          ArchivedEntry(
            key: .string("c"),
            value: .array([.integer(1), .dictionary([ArchivedEntry(key: .string("d"), value: .null)])])),
        ]))
    for bad in ["[1,]", "{\"a\" 1}", "[1 2]", "{,}", "[", "{\"a\":1,}", "[]]"] {
      #expect(throws: JSONParseError.self) { try JSONParser().parse(bad) }
    }
  }
}
