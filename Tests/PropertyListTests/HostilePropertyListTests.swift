import Foundation
import TestSupport
import Testing

@testable import PropertyList

/// Assembles a binary property list from raw object bytes, computing the offset table and trailer
/// (any of which a test may override to damage the file).
func rawBinaryPlist(
  _ objects: [[UInt8]], top: UInt64 = 0, referenceSize: UInt8 = 1, offsetSize: UInt8 = 4,
  objectCount: UInt64? = nil, tableOffset: UInt64? = nil, offsets: [UInt64]? = nil
) -> [UInt8] {
  var bytes = Array("bplist00".utf8)
  var computed = [UInt64]()
  for object in objects {
    computed.append(UInt64(bytes.count))
    bytes += object
  }
  let table = UInt64(bytes.count)
  for offset in offsets ?? computed { bytes += bigEndian(offset, width: Int(offsetSize)) }
  bytes += [0, 0, 0, 0, 0, 0, offsetSize, referenceSize]
  bytes += bigEndian(objectCount ?? UInt64(objects.count), width: 8)
  bytes += bigEndian(top, width: 8)
  bytes += bigEndian(tableOffset ?? table, width: 8)
  return bytes
}

func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
  (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
}

/// Expects `body` to throw a `PropertyListError` matching `expected`, and its message to be useful.
func expectError(
  _ expected: (PropertyListError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () throws -> Void
) {
  do {
    try body()
    Issue.record("expected an error, but reading succeeded", sourceLocation: sourceLocation)
  } catch let error as PropertyListError {
    #expect(expected(error), "unexpected error: \(error)", sourceLocation: sourceLocation)
    #expect(error.description.count > 20, sourceLocation: sourceLocation)
  } catch {
    Issue.record("expected a PropertyListError, got \(error)", sourceLocation: sourceLocation)
  }
}

@Suite struct HostilePropertyListTests {
  let reader = PropertyListReader()

  @Test func zeroLengthFile() {
    expectError({ $0 == .empty }) { _ = try reader.read([UInt8]()) }
  }

  @Test func randomBytes() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let bytes = (0..<Int.random(in: 1...300, using: &generator)).map { _ in
        UInt8.random(in: 0...255, using: &generator)
      }
      do { _ = try reader.read(bytes) } catch {}  // any typed error is fine; a crash is not
    }
    expectError({ if case .unrecognizedFormat(let prefix) = $0 { prefix == "de ad be ef" } else { false } }) {
      _ = try reader.read([0xDE, 0xAD, 0xBE, 0xEF])
    }
  }

  @Test func randomBytesAfterTheHeader() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2000 {
      let tail = (0..<Int.random(in: 0...200, using: &generator)).map { _ in
        UInt8.random(in: 0...255, using: &generator)
      }
      do { _ = try reader.read(Array("bplist00".utf8) + tail) } catch {}
    }
  }

  @Test func everyTruncationOfAFixture() throws {
    for name in ["NSKeyedUnarchiver-ComplexTest.plist", "NSKeyedUnarchiver-URLTest.plist"] {
      let bytes = try [UInt8](Data(contentsOf: fixturesDirectory.appendingPathComponent(name)))
      for length in 0..<bytes.count {
        do {
          _ = try reader.read(Array(bytes[0..<length]))
          // Only cutting trailing whitespace off an XML file leaves it valid.
          let cut = bytes[length...]
          #expect(cut.allSatisfy { $0 == 0x0A || $0 == 0x20 }, "\(name) cut to \(length) bytes was accepted")
        } catch {}
      }
    }
    expectError({ $0 == .truncated(length: 20) }) {
      _ = try reader.read(Array("bplist00".utf8) + [UInt8](repeating: 0, count: 12))
    }
  }

  @Test func validMinimalFile() throws {
    let bytes = rawBinaryPlist([[0xA2, 1, 2], [0x09], [0x13, 0, 0, 0, 0, 0, 0, 0, 42]])
    #expect(try reader.read(bytes).root == .array([.boolean(true), .integer(42)]))
  }

  @Test func offsetPointingOutsideTheFile() {
    let bytes = rawBinaryPlist([[0x09]], offsets: [0xFFFF_FFF0])
    expectError({ $0 == .objectOffsetOutOfRange(object: 0, offset: 0xFFFF_FFF0) }) {
      _ = try reader.read(bytes)
    }
  }

  @Test func offsetTableOutsideTheFile() {
    let bytes = rawBinaryPlist([[0x09]], tableOffset: 1 << 40)
    expectError({ if case .invalidTrailer = $0 { true } else { false } }) { _ = try reader.read(bytes) }
  }

  @Test func objectCountOf2To31() {
    let bytes = rawBinaryPlist([[0x09]], objectCount: 1 << 31)
    expectError({ $0 == .objectCountTooLarge(count: 1 << 31, length: bytes.count) }) {
      _ = try reader.read(bytes)
    }
  }

  @Test func arrayCountOf2To31FailsFast() {
    // An array claiming 2^31 elements (count in a following 4-byte integer) in a tiny file.
    let bytes = rawBinaryPlist([[0xAF, 0x12, 0x80, 0, 0, 0, 0, 0]])
    expectError({ if case .objectRunsPastEnd(object: 0, _, _) = $0 { true } else { false } }) {
      _ = try reader.read(bytes)
    }
    let huge = rawBinaryPlist([[0xDF, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])
    expectError({ if case .objectRunsPastEnd = $0 { true } else { false } }) { _ = try reader.read(huge) }
    let data = rawBinaryPlist([[0x4F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]])
    expectError({ if case .objectRunsPastEnd = $0 { true } else { false } }) { _ = try reader.read(data) }
  }

  @Test func referenceOutOfRange() {
    let bytes = rawBinaryPlist([[0xA1, 7]])
    expectError({ $0 == .referenceOutOfRange(object: 0, reference: 7, objectCount: 1) }) {
      _ = try reader.read(bytes)
    }
  }

  @Test func containerContainingItself() {
    let bytes = rawBinaryPlist([[0xA2, 1, 0], [0x09]])
    expectError({ $0 == .cyclicContainer(object: 0) }) { _ = try reader.read(bytes) }
    let viaDictionary = rawBinaryPlist([[0xD1, 1, 2], [0x51, 0x6B], [0xA1, 0]])
    expectError({ if case .cyclicContainer = $0 { true } else { false } }) {
      _ = try reader.read(viaDictionary)
    }
  }

  /// Arrays nested `depth` deep, each holding the next, the last holding `true`.
  func nestedArrays(_ depth: Int) -> [UInt8] {
    var objects = [[UInt8]]()
    for index in 0..<depth { objects.append([0xA1] + bigEndian(UInt64(index + 1), width: 4)) }
    objects.append([0x09])
    return rawBinaryPlist(objects, referenceSize: 4)
  }

  @Test func nestingAtTheLimitIsRead() throws {
    let document = try reader.read(nestedArrays(PropertyListReader.defaultMaximumDepth))
    var value = document.root
    var depth = 0
    while case .array(let elements) = value, let first = elements.first {
      value = first
      depth += 1
    }
    #expect(depth == PropertyListReader.defaultMaximumDepth)
  }

  @Test func nestingThousandsDeepIsRefused() {
    for depth in [PropertyListReader.defaultMaximumDepth + 1, 5_000, 100_000] {
      expectError({ $0 == .nestingTooDeep(limit: PropertyListReader.defaultMaximumDepth) }) {
        _ = try reader.read(nestedArrays(depth))
      }
    }
  }

  // Apple's reader keeps unpaired surrogates (an NSString cut inside an emoji is archived with
  // one), so they are read as U+FFFD and recorded, not the whole file refused.
  @Test func unpairedSurrogatesAreReadAsReplacementCharactersAndRecorded() throws {
    // "a" followed by a lone high surrogate.
    let highLast = try reader.read(rawBinaryPlist([[0x62, 0x00, 0x61, 0xD8, 0x00]]))
    #expect(highLast.root == .string("a\u{FFFD}"))
    #expect(highLast.unpairedSurrogates == [UnpairedSurrogate(object: 0, unit: 1, value: 0xD800, count: 1)])
    // A lone low surrogate first, then a pair, then a high surrogate before a letter.
    let mixed = try reader.read(
      rawBinaryPlist([[0x65, 0xDC, 0x00, 0xD8, 0x3D, 0xDE, 0x00, 0xD8, 0x3D, 0x00, 0x62]]))
    #expect(mixed.root == .string("\u{FFFD}😀\u{FFFD}b"))
    #expect(mixed.unpairedSurrogates == [UnpairedSurrogate(object: 0, unit: 0, value: 0xDC00, count: 2)])
    #expect(
      mixed.unpairedSurrogates.first?.description
        == "string object 0 of the property list has 2 unpaired UTF-16 surrogates, the first (0xdc00) "
        + "at code unit 0, shown as U+FFFD")
    let pair = try reader.read(rawBinaryPlist([[0x62, 0xD8, 0x3D, 0xDE, 0x00]]))
    #expect(pair.root == .string("😀"))
    #expect(pair.unpairedSurrogates.isEmpty)
  }

  // The limit only turns a hang into a failure; speed is the benchmark's business.
  @Test(.hangLimit) func sharedContainersThatWouldExpandExponentially() {
    // Object k is an array holding object k+1 twice: 2^60 values if expanded.
    var objects = [[UInt8]]()
    for index in 0..<60 { objects.append([0xA2, UInt8(index + 1), UInt8(index + 1)]) }
    objects.append([0x09])
    let bytes = rawBinaryPlist(objects)
    expectError({ if case .expansionTooLarge = $0 { true } else { false } }) { _ = try reader.read(bytes) }
  }

  @Test func nonStringKey() {
    let bytes = rawBinaryPlist([[0xD1, 1, 1], [0x10, 5]])
    expectError({ $0 == .nonStringKey(object: 0) }) { _ = try reader.read(bytes) }
  }

  @Test func unknownMarker() {
    expectError({ $0 == .unknownMarker(object: 0, marker: 0x70) }) {
      _ = try reader.read(rawBinaryPlist([[0x70]]))
    }
  }

  @Test func integersOfEveryWidth() throws {
    let objects: [[UInt8]] = [
      [0xA6, 1, 2, 3, 4, 5, 6], [0x10, 0xFF], [0x11, 0xFF, 0xFF], [0x12, 0xFF, 0xFF, 0xFF, 0xFF],
      [0x13] + bigEndian(UInt64(bitPattern: -5), width: 8),
      [0x14] + bigEndian(0, width: 8) + bigEndian(UInt64.max, width: 8),
      [0x14] + bigEndian(UInt64.max, width: 8) + bigEndian(UInt64(bitPattern: -7), width: 8),
    ]
    #expect(
      try reader.read(rawBinaryPlist(objects)).root
        == .array([
          .integer(255), .integer(65535), .integer(4_294_967_295), .integer(-5), .unsignedInteger(.max),
          .integer(-7),
        ]))
    expectError({ $0 == .integerTooWide(object: 0) }) {
      _ = try reader.read(rawBinaryPlist([[0x14] + bigEndian(1, width: 8) + bigEndian(0, width: 8)]))
    }
  }
}

@Suite struct XMLPropertyListTests {
  let reader = PropertyListReader()

  func read(_ text: String) throws(PropertyListError) -> PropertyListValue {
    try reader.read(Array(text.utf8)).root
  }

  @Test func everyElementKind() throws {
    let value = try read(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
      <plist version="1.0">
      <dict>
        <key>s</key><string>a &lt;b&gt; &amp; &#x263A; &#65;<![CDATA[<raw>]]></string>
        <key>i</key><integer>-42</integer>
        <key>u</key><integer>18446744073709551615</integer>
        <key>r</key><real>2.5</real>
        <key>t</key><true/>
        <key>f</key><false/>
        <key>d</key><date>2001-01-01T00:01:00Z</date>
        <key>b</key><data>AAEC
        /w==</data>
        <key>a</key><array><string/><array/><dict/></array>
        <key>ref</key><dict><key>CF$UID</key><integer>7</integer></dict>
      </dict>
      </plist>
      """)
    #expect(
      value
        == .dictionary([
          "s": .string("a <b> & ☺ A<raw>"), "i": .integer(-42), "u": .unsignedInteger(.max), "r": .real(2.5),
          "t": .boolean(true), "f": .boolean(false), "d": .date(ArchiveDate(secondsSince2001: 60)),
          "b": .data([0, 1, 2, 255]), "a": .array([.string(""), .array([]), .dictionary([])]),
          "ref": .uid(7),
        ]))
  }

  @Test func malformedDocumentsNameTheLine() {
    expectError({ if case .malformedXML(line: 3, _) = $0 { true } else { false } }) {
      _ = try read("<plist>\n<array>\n<bogus/>\n</array></plist>")
    }
    expectError({ if case .malformedXML = $0 { true } else { false } }) {
      _ = try read("<plist><string>open")
    }
    expectError({ if case .malformedXML = $0 { true } else { false } }) {
      _ = try read("<plist><integer>12x</integer></plist>")
    }
    expectError({ if case .malformedXML = $0 { true } else { false } }) {
      _ = try read("<plist><string>&bogus;</string></plist>")
    }
    expectError({ if case .malformedXML = $0 { true } else { false } }) {
      _ = try read("<plist><true/></plist>trailing")
    }
  }

  @Test func entityExpansionIsNeverInterpreted() {
    let billionLaughs = """
      <?xml version="1.0"?>
      <!DOCTYPE plist [ <!ENTITY lol "lol"> <!ENTITY lol2 "&lol;&lol;&lol;"> ]>
      <plist><string>&lol2;</string></plist>
      """
    expectError({ if case .malformedXML = $0 { true } else { false } }) { _ = try read(billionLaughs) }
  }

  @Test func deepNestingIsRefused() {
    let depth = 100_000
    let text =
      "<plist>" + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
      + "</plist>"
    expectError({ $0 == .nestingTooDeep(limit: PropertyListReader.defaultMaximumDepth) }) {
      _ = try read(text)
    }
  }

  @Test func invalidUTF8Text() {
    expectError({ if case .invalidUTF8 = $0 { true } else { false } }) {
      _ = try reader.read(Array("<plist><string>".utf8) + [0xFF, 0xFE] + Array("</string></plist>".utf8))
    }
  }
}
