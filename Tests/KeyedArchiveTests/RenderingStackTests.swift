import KeyedArchive
import Testing
import WormholeVocabulary

/// The pure layers start no thread of their own, so what they do with deep values must fit
/// whatever stack their caller has: the renderers do not recurse (the JSON parser's test of the
/// same is in WormholeTests), and the parser reads what it did before it stopped recursing.
@Suite struct RenderingStackTests {
  /// About the decoder's limit (512), where the recursive renderers needed more than 2 MB. Not
  /// deeper: making and releasing a value recurse in the Swift runtime, on the test's thread.
  static let depth = 500

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

  @Test func renderersShowAnyDepthOnASmallStack() {
    let value = Self.nested(Self.depth)
    let sizes = onSmallStack { [value.textTree().count, value.json().count, value.summary(width: 80).count] }
    #expect(sizes.map { $0.allSatisfy { $0 > 0 } } == true)
    let text = value.textTree()
    #expect(text.contains("\"bottom\""))
    #expect(text.split(separator: "\n").count > Self.depth)
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
