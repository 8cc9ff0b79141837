import KeyedArchive
import Testing
import WormholeVocabulary

/// The one display escaper: invisible characters are made visible in names, emoji sequences stay
/// in text, and JSON output escapes what text output escapes (issue 12).
@Suite struct DisplayTextTests {
  /// Characters that draw nothing, each of which can make two names look alike.
  static let invisible: [Unicode.Scalar] = [
    "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{2061}", "\u{FEFF}", "\u{AD}", "\u{FFF9}",
    "\u{FFFA}", "\u{FFFB}", "\u{E0001}", "\u{E0041}", "\u{E007F}", "\u{FE0F}", "\u{FE00}", "\u{E0100}",
    "\u{34F}", "\u{115F}", "\u{3164}", "\u{180E}",
  ]
  /// What a terminal acts on.
  static let active: [Unicode.Scalar] = [
    "\u{0}", "\u{7}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9B}", "\u{2028}", "\u{2029}", "\u{202E}",
    "\u{2066}", "\u{200E}", "\u{61C}",
  ]

  @Test(arguments: invisible + active) func aNameHidingOneCharacterLooksDifferent(scalar: Unicode.Scalar) {
    let hidden = "zw" + String(scalar) + "j"
    let field = DisplayText.field(hidden)
    #expect(field != DisplayText.field("zwj"))
    #expect(field.hasPrefix("\"") && field.contains("\\u{"), "\(field)")
    #expect(!field.unicodeScalars.contains(scalar))
    #expect(!DisplayText.name(hidden).unicodeScalars.contains(scalar))
    #expect(!DisplayText.quoted(hidden).unicodeScalars.contains(scalar))
    // JSON says the same: the character is escaped, and reads back.
    let json = DisplayText.jsonString(hidden)
    #expect(!json.unicodeScalars.contains(scalar), "\(json)")
    #expect((try? JSONParser().parse(json)) == .string(hidden))
  }

  @Test func zeroWidthSpaceIsWrittenAsItsCodePoint() {
    #expect(DisplayText.field("zw\u{200B}j") == #""zw\u{200b}j""#)
    #expect(FileName("zw\u{200B}j").displayField == #""zw\u{200b}j""#)
    #expect(DisplayText.jsonString("zw\u{200B}j") == #""zw\u200bj""#)
    #expect(DisplayText.jsonString("t\u{E0041}") == #""t\udb40\udc41""#)
  }

  @Test func emojiSequencesStayInTextButNotInNames() {
    let family = "👨\u{200D}👩\u{200D}👧"
    let scotland = "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"
    let heartOnFire = "❤\u{FE0F}\u{200D}🔥"
    let persian = "می\u{200C}خواهم"
    for text in [family, scotland, heartOnFire, persian, "☺\u{FE0E}"] {
      #expect(DisplayText.escaped(text) == text)
      // JSON is read by programs: every invisible character escaped, read back the same.
      #expect(DisplayText.jsonString(text).contains("\\u"))
      #expect((try? JSONParser().parse(DisplayText.jsonString(text))) == .string(text))
      #expect(DisplayText.field(text).contains("\\u{"), "\(text)")
    }
  }

  /// The dashboard draws a flag as its letters (terminals disagree on its width): in a name it
  /// is escaped, so `flag🇫🇷` never passes for `flagFR`; in message text it stays a flag.
  @Test func aFlagInANameIsEscapedButStaysInText() {
    let flag = "flag\u{1F1EB}\u{1F1F7}"
    #expect(DisplayText.name(flag) == #"flag\u{1f1eb}\u{1f1f7}"#)
    #expect(DisplayText.field(flag) == #""flag\u{1f1eb}\u{1f1f7}""#)
    #expect(DisplayText.field(flag) != DisplayText.field("flagFR"))
    #expect(DisplayText.escaped(flag) == flag)
  }

  @Test func anInvisibleCharacterStandingAloneIsEscapedInTextToo() {
    #expect(DisplayText.escaped("\u{200D}x") == "\\u{200d}x")
    #expect(DisplayText.escaped("a \u{FE0F}") == "a \\u{fe0f}")
    #expect(DisplayText.escaped("a\u{200B}b") == "a\\u{200b}b")
    #expect(DisplayText.escaped("a\u{AD}b") == "a\\u{ad}b")
    #expect(DisplayText.escaped("\u{E0041}") == "\\u{e0041}")
    #expect(DisplayText.escaped("a\u{200D}\u{200D}b") == "a\u{200D}\\u{200d}b")
  }

  @Test func namesInTextAndJSONEscapeTheSameCharacters() {
    var all = ""
    for value in UInt32(0)...0x3000 {
      if let scalar = Unicode.Scalar(value) { all.unicodeScalars.append(scalar) }
    }
    for value in UInt32(0xFE00)...0xFFFF {
      if let scalar = Unicode.Scalar(value) { all.unicodeScalars.append(scalar) }
    }
    for value in UInt32(0xE0000)...0xE01EF {
      if let scalar = Unicode.Scalar(value) { all.unicodeScalars.append(scalar) }
    }
    let text = DisplayText.name(all)
    let json = DisplayText.jsonString(all)
    let kept = { (output: String) in
      Set(output.unicodeScalars.filter { $0.value >= 0x80 }.map(\.value))
    }
    #expect(kept(text) == kept(json))
    #expect((try? JSONParser().parse(json)) == .string(all))
  }

  @Test func aStoredJSONLineIsEscapedAndMeansTheSame() {
    let line = "{\"kind\":\"k\u{7F}\u{9B}2J\u{202E}\u{200B}\",\"n\":1}"
    let shown = DisplayText.jsonLine(line)
    #expect(shown == #"{"kind":"k\u007f\u009b2J\u202e\u200b","n":1}"#)
    #expect((try? JSONParser().parse(shown)) == (try? JSONParser().parse(line)))
    #expect(DisplayText.jsonLine(#"{"plain":"ascii"}"#) == #"{"plain":"ascii"}"#)
  }

  @Test func journalRecordsWrittenWithHostileFieldsReadBackExactly() throws {
    let hostile = "i\u{1B}]2;T\u{7}\u{7F}\u{9B}\u{202E}\u{200B}\u{E0041}"
    let record = TrafficRecord(
      sequence: 1, milliseconds: 0, processIdentifier: 1, sender: hostile, transiting: hostile,
      kind: TrafficKind(rawValue: hostile), identifier: hostile, bytes: 0, outcome: .failed, error: hostile,
      replayOf: nil)
    let bytes = record.jsonLineBytes
    #expect(!bytes.contains(0x1B) && !bytes.contains(0x7F))
    let read = try #require(TrafficRecord(jsonLineBytes: bytes[...]))
    #expect(Array(read.identifier.utf8) == Array(hostile.utf8))
    #expect(Array(read.sender.utf8) == Array(hostile.utf8))
    #expect(read.kind.rawValue.utf8.elementsEqual(hostile.utf8))
  }

  @Test func theInvisibleSetIsUnicodesDefaultIgnorables() {
    for value in UInt32(0xA0)...0xE0FFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let expected = scalar.properties.isDefaultIgnorableCodePoint || (0xFFF9...0xFFFB).contains(value)
      #expect(DisplayText.isInvisible(scalar) == expected, "U+\(String(value, radix: 16))")
    }
  }

  /// A terminal cell draws a character with at most 4 combining marks (ncurses drops the rest, or
  /// all of them): past 4, the marks are escaped, so that a name with 40 marks on its `a` neither
  /// shows as plain `azalgo` nor as the same name with 4.
  @Test func marksPastWhatACellHoldsAreEscaped() {
    let four = "a" + String(repeating: "\u{301}", count: 4) + "zalgo"
    let forty = "a" + String(repeating: "\u{301}", count: 40) + "zalgo"
    #expect(DisplayText.field(four) == four)
    #expect(DisplayText.escaped(four) == four)
    let field = DisplayText.field(forty)
    #expect(field != DisplayText.field(four))
    #expect(field.hasPrefix("\"a" + String(repeating: "\u{301}", count: 4) + "\\u{301}"), "\(field)")
    #expect(field.unicodeScalars.count { $0 == "\u{301}" } == 4)
    #expect(DisplayText.name(forty).unicodeScalars.count { $0 == "\u{301}" } == 4)
    #expect(DisplayText.escaped(forty).unicodeScalars.count { $0 == "\u{301}" } == 4)
    #expect(DisplayText.escaped(forty).hasSuffix("zalgo"))
    // Marks on separate characters are counted per character.
    let spread = String(repeating: "e\u{301}\u{301}", count: 10)
    #expect(DisplayText.escaped(spread) == spread)
  }
}
