import ArchivedValues
import PatternMatching

/// A `/` filter on a pane: a regular expression (PCRE2, Perl syntax), or its inverse when the text
/// starts with `!`.
///
/// Matching never holds the loop: every candidate is bounded by ``MatchLimits/interactive``, and a
/// pass over many candidates by a ``MatchBudget`` (a few cut-offs and the pattern is given up for
/// the rest of the pass; a burst that runs out of time stops trying). A candidate the filter could
/// not decide is hidden, whether or not the filter is inverted, and ``notice(counting:)`` says how
/// many there were and why.
public struct PaneFilter: Sendable {
  /// What the operator typed.
  public private(set) var text: String
  /// Why the expression does not compile, when it does not (ready to show, escaped); the filter
  /// then matches everything.
  public private(set) var error: String?
  private let inverted: Bool
  private let pattern: Pattern?
  private var budget: MatchBudget

  /// A filter for `text`; `budget` bounds each pass (see ``beginPass()``).
  public init(_ text: String, budget: MatchBudget = MatchBudget(), limits: MatchLimits = .interactive) {
    self.text = text
    self.budget = budget
    inverted = text.hasPrefix("!")
    let source = inverted ? String(text.dropFirst()) : text
    do {
      pattern = source.isEmpty ? nil : try Pattern(source, limits: limits)
      error = nil
    } catch {
      pattern = nil
      let said = DisplayText.escaped(error.message)
      if error.concernsTheWholePattern {
        self.error =
          "not a regular expression the matcher takes: \(said) (\(source.unicodeScalars.count) characters)"
      } else {
        self.error = "not a regular expression: \(said) at character \(error.offset + (inverted ? 1 : 0))"
      }
    }
  }

  /// Whether the filter lets nothing through its own way (empty, or only `!`).
  public var isEmpty: Bool { pattern == nil && error == nil }

  /// Whether `candidate` passes the filter, bounded by the match limits but outside any pass:
  /// a candidate that is cut off does not pass. A loop over many candidates uses ``admits(_:)``.
  public func matches(_ candidate: String) -> Bool {
    guard let pattern else { return true }
    return passes(pattern.match(candidate))
  }

  /// Starts a pass over every candidate (the whole tree, every row): forgets what earlier passes
  /// could not decide, and tries the pattern again.
  public mutating func beginPass() { budget.begin() }

  /// Goes on with the current pass for candidates a later message brought (rows appended, a
  /// directory changed): the pass's time limit starts again, its counts stay.
  public mutating func continuePass() { budget.resume() }

  /// Whether `candidate` passes the filter, as part of the current pass: a candidate that is cut
  /// off, or not tried because the pass has stopped trying, does not pass and is counted. The
  /// candidate's text is made only when it is tried.
  public mutating func admits(_ candidate: @autoclosure () -> String) -> Bool {
    guard let pattern else { return true }
    guard let outcome = budget.match(pattern, candidate()) else { return false }
    return passes(outcome)
  }

  /// How many candidates of the current pass were cut off or not tried (and are hidden).
  public var undecidedCount: Int { budget.cutOffCount + budget.notTriedCount }

  /// What the current pass could not decide, ready to show next to the filter (escaped); `nil`
  /// when it decided every candidate. `noun` names the candidates in the plural ("names", "rows").
  public func notice(counting noun: String = "names") -> String? {
    guard let pattern, !budget.decidedAll else { return nil }
    let singular = noun.hasSuffix("s") ? String(noun.dropLast()) : noun
    func counted(_ count: Int) -> String { "\(count) \(count == 1 ? singular : noun)" }
    var counts: [String] = []
    if budget.cutOffCount > 0 { counts.append("cut off on \(counted(budget.cutOffCount))") }
    if budget.notTriedCount > 0 {
      counts.append(
        budget.cutOffCount > 0
          ? "not tried on \(budget.notTriedCount) more" : "not tried on \(counted(budget.notTriedCount))")
    }
    var reasons: [String] = []
    if let reason = budget.lastCutOff { reasons.append("too costly to match (\(reason))") }
    if budget.ranOutOfTime { reasons.append("matching took over \(Self.milliseconds(budget.timeLimit)) ms") }
    return "pattern \(DisplayText.escaped(pattern.source)) \(counts.joined(separator: ", ")): "
      + "\(reasons.joined(separator: ", ")); hidden"
  }

  private func passes(_ outcome: MatchOutcome) -> Bool {
    switch outcome {
    case .match: !inverted
    case .noMatch: inverted
    case .cutOff: false
    }
  }

  private static func milliseconds(_ duration: Duration) -> Int64 {
    let (seconds, attoseconds) = duration.components
    return seconds * 1000 + attoseconds / 1_000_000_000_000_000
  }
}
