import Testing

@testable import PatternMatching

@Suite struct PatternOptionsTests {
  @Test(arguments: [false, true])
  func aWholeSubjectPatternDoesNotMatchAPartOnly(machineCode: Bool) throws {
    let pattern = try Pattern("app://item/\\d+", options: .wholeSubject, compileToMachineCode: machineCode)
    #expect(pattern.match("app://item/42") == .match)
    #expect(pattern.match("app://item/42/more") == .noMatch)
    #expect(pattern.match("x-app://item/42") == .noMatch)
    // Alternatives are tried until one spans the whole candidate.
    let alternatives = try Pattern("a|ab", options: .wholeSubject, compileToMachineCode: machineCode)
    #expect(alternatives.match("ab") == .match)
  }

  /// Wrapping the text in `\A(?:…)\z` would change these; the compile options do not.
  @Test(arguments: [false, true])
  func wholeSubjectKeepsRecursionAndQuoting(machineCode: Bool) throws {
    let balanced = try Pattern(
      "\\((?:[^()]|(?R))*\\)", options: .wholeSubject, compileToMachineCode: machineCode)
    #expect(balanced.match("(a(b)c)") == .match)
    #expect(balanced.match("(a(b)c") == .noMatch)
    let quoted = try Pattern("\\Qa.b", options: .wholeSubject, compileToMachineCode: machineCode)
    #expect(quoted.match("a.b") == .match)
    #expect(quoted.match("axb") == .noMatch)
  }

  @Test(arguments: [false, true])
  func caseInsensitiveFoldsUnicodeCase(machineCode: Bool) throws {
    let pattern = try Pattern(
      "APP://CAFÉ", options: [.caseInsensitive, .wholeSubject], compileToMachineCode: machineCode)
    #expect(pattern.match("app://café") == .match)
    #expect(try Pattern("APP", compileToMachineCode: machineCode).match("app") == .noMatch)
  }

  /// A whole-subject candidate has one start position, so a long ordinary match is not cut off by
  /// steps shared out among positions that are never tried.
  @Test func aWholeSubjectCandidateGetsEveryStep() throws {
    let limits = MatchLimits(steps: 100_000, minimumStepsPerStart: 10, depth: 10_000, heapKibibytes: 4096)
    let candidate = String(repeating: "x", count: 2_000) + "end"
    let pattern = try Pattern(
      "(?:x|y)*end", limits: limits, options: .wholeSubject, compileToMachineCode: false)
    #expect(pattern.match(candidate) == .match)
  }
}
