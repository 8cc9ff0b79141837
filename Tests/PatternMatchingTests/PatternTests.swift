import Testing

@testable import PatternMatching

@Suite struct PatternTests {
  /// Issue 12: this backtracked for over a minute with Swift's `Regex`.
  @Test(arguments: [false, true])
  func aCatastrophicPatternIsCutOffByTheMatchLimit(machineCode: Bool) throws {
    let pattern = try Pattern("(a+)+$", compileToMachineCode: machineCode)
    #expect(pattern.match(String(repeating: "a", count: 240) + "!") == .cutOff(.matchLimit))
    #expect(pattern.match(String(repeating: "a", count: 240)) == .match)
  }

  /// PCRE2 counts its match limit afresh at every start position; the steps are shared out among
  /// them, so many segments each just under the limit are cut off too.
  @Test func theStepsAreSharedAmongTheStartPositionsOfALongCandidate() throws {
    let segment = String(repeating: "a", count: 15) + "!"
    let pattern = try Pattern("(a+)+$")
    #expect(pattern.match(String(repeating: segment, count: 16)) == .cutOff(.matchLimit))
  }

  @Test func theDepthLimitIsReportedAsSuch() throws {
    let limits = MatchLimits(
      steps: 10_000_000, minimumStepsPerStart: 10_000_000, depth: 20, heapKibibytes: 4096)
    let pattern = try Pattern("^(a(?1)?)$", limits: limits, compileToMachineCode: false)
    #expect(pattern.match(String(repeating: "a", count: 100)) == .cutOff(.depthLimit))
    #expect(pattern.match("aaa") == .match)
  }

  @Test func theHeapLimitIsReportedAsSuch() throws {
    let limits = MatchLimits(
      steps: 10_000_000, minimumStepsPerStart: 10_000_000, depth: 10_000_000, heapKibibytes: 1)
    let pattern = try Pattern("^(a(?1)?)$", limits: limits, compileToMachineCode: false)
    #expect(pattern.match(String(repeating: "a", count: 5_000)) == .cutOff(.heapLimit))
  }

  @Test(arguments: [false, true])
  func ordinaryPatternsMatchAsBefore(machineCode: Bool) throws {
    let cases: [(String, String, Bool)] = [
      ("^al", "alpha", true), ("^al", "beta", false), ("ta$", "beta", true), ("^(al|be)", "gamma", false),
      ("[0-9]+", "button-42", true), ("^[a-z]+$", "button-42", false), ("\\.", "com.example", true),
      ("(?i)BUTTON", "button", true), ("x(?=y)", "xy", true), ("x(?!y)", "xy", false),
      ("(\\w)\\1", "button", true), ("(\\w)\\1", "abc", false),
      ("é", "café", true), ("^caf.$", "café", true), ("(?i)É", "café", true), ("^\\w+$", "café", true),
      ("日本", "日本語", true), ("^...$", "日本語", true), ("^\\p{Han}+$", "日本語", true),
      ("👍", "ok👍", true), ("^ok.$", "ok👍", true), ("^\\X$", "👨‍👩‍👧", true),
      ("^.$", "e\u{301}", false), ("^\\X$", "e\u{301}", true), ("", "anything", true), ("^$", "", true),
    ]
    for (source, candidate, expected) in cases {
      let pattern = try Pattern(source, compileToMachineCode: machineCode)
      #expect(pattern.match(candidate) == (expected ? .match : .noMatch), "\(source) on \(candidate)")
    }
  }

  @Test func anInvalidPatternSaysWhatAndWhereInCharacters() {
    #expect(throws: PatternError.self) { try Pattern("(") }
    do {
      _ = try Pattern("日本(")
      Issue.record("compiled")
    } catch {
      #expect(error.offset == 3)
      #expect(error.message == "missing closing parenthesis")
      #expect(error.description == "missing closing parenthesis at offset 3")
    }
    do {
      _ = try Pattern("a{2,1}")
      Issue.record("compiled")
    } catch {
      #expect(error.offset == 5)
      #expect(error.message.contains("out of order"))
    }
  }

  @Test(arguments: [false, true])
  func bytesThatAreNotUTF8MatchNothingAndDoNotCrash(machineCode: Bool) throws {
    let bytes: [UInt8] = [0x61, 0xFF, 0x62, 0xC3]
    func match(_ source: String) throws -> MatchOutcome {
      let pattern = try Pattern(source, compileToMachineCode: machineCode)
      return bytes.withUnsafeBufferPointer { pattern.match(utf8: $0) }
    }
    #expect(try match("a.b") == .noMatch)
    #expect(try match("b") == .match)
    #expect(try match("^a") == .match)
    #expect(try match("b.$") == .noMatch)
  }

  @Test func anEmptyCandidateIsMatched() throws {
    #expect(try Pattern("^$").match(utf8: UnsafeBufferPointer(start: nil, count: 0)) == .match)
    #expect(try Pattern("a").match("") == .noMatch)
  }
}
