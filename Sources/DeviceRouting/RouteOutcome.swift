import ArchivedValues
import PatternMatching
import WormholeVocabulary

/// What one routing did: who took the deep link or the push, who declined it, and which patterns
/// could not be decided (cut off by the match limits, or not tried once the routing's budget was
/// spent). A routing always ends, and always says which of these happened.
public struct RouteOutcome: Sendable, Equatable, CustomStringConvertible {
  /// Who received it.
  public enum Taker: Sendable, Equatable {
    /// The first catcher whose pattern matched, and which did not decline.
    case catcher(CatcherReference)
    /// The delegate: no catcher matched, or the one that matched declined.
    case delegate
    /// Nobody: no catcher took it and there is no delegate.
    case unhandled
  }

  /// A catcher whose pattern was cut off on this subject, and why.
  public struct CutOff: Sendable, Equatable {
    public var catcher: CatcherReference
    public var reason: CutOffReason
  }

  /// What was routed.
  public var kind: RouteKind
  /// What the patterns were matched against: the URL, or the push's `aps` string under the
  /// router's notification key; `nil` for a push without one (no catcher can match it).
  public var subject: String?
  /// Who received it.
  public var taker: Taker
  /// The catcher that matched and declined, when one did (the delegate, if any, then got it).
  public var declinedBy: CatcherReference?
  /// Catchers cut off by the match limits, in order: neither a match nor a non-match, so routing
  /// went on to the next catcher.
  public var cutOff: [CutOff]
  /// Catchers not tried because the routing's ``MatchBudget`` stopped trying (too many cut off,
  /// or out of time), in order.
  public var notTried: [CatcherReference]

  public init(
    kind: RouteKind, subject: String?, taker: Taker, declinedBy: CatcherReference? = nil,
    cutOff: [CutOff] = [], notTried: [CatcherReference] = []
  ) {
    self.kind = kind
    self.subject = subject
    self.taker = taker
    self.declinedBy = declinedBy
    self.cutOff = cutOff
    self.notTried = notTried
  }

  /// Whether every catcher before the taker was decided (none cut off or skipped).
  public var decidedAll: Bool { cutOff.isEmpty && notTried.isEmpty }

  /// The route taken in a few words, escaped for a terminal: `catcher 0 "app://item/.*"
  /// (routes:3)`, `delegate`, `delegate, declined by catcher 1 …`, `unhandled`, then `; cut off:
  /// catcher 2 … (PCRE2 match limit)` and `; not tried: 3 catchers` when some were undecided.
  public var description: String {
    var text: String
    switch taker {
    case .catcher(let catcher): text = catcher.description
    case .delegate: text = "delegate"
    case .unhandled: text = "unhandled"
    }
    if let declinedBy { text += ", declined by \(declinedBy)" }
    if kind == .push, subject == nil { text += ", no notification identifier" }
    if !cutOff.isEmpty {
      text += "; cut off: " + cutOff.map { "\($0.catcher) (\($0.reason))" }.joined(separator: ", ")
    }
    if !notTried.isEmpty {
      text += "; not tried: \(notTried.count) catcher\(notTried.count == 1 ? "" : "s")"
    }
    return text
  }

  /// The outcome as one JSON object, for a traffic record's `route` field and `--json` output:
  /// `{"taken":"catcher"|"delegate"|"unhandled","subject":"…"?,"catcher":{…}?,"declined_by":{…}?,
  /// "cut_off":[{…,"reason":"…"}],"not_tried":[{…}]}`, a catcher being
  /// `{"kind","index","pattern","label"?}`; `subject` only when there is one, `cut_off` and
  /// `not_tried` only when not empty.
  public var json: String {
    var fields: [String] = []
    let taken: String
    switch taker {
    case .catcher: taken = "catcher"
    case .delegate: taken = "delegate"
    case .unhandled: taken = "unhandled"
    }
    fields.append("\"taken\":\"\(taken)\"")
    if let subject { fields.append("\"subject\":" + JSONText.string(subject)) }
    switch taker {
    case .catcher(let catcher): fields.append("\"catcher\":" + Self.json(catcher))
    case .delegate, .unhandled: break
    }
    if let declinedBy { fields.append("\"declined_by\":" + Self.json(declinedBy)) }
    if !cutOff.isEmpty {
      let items = cutOff.map { cut in
        Self.json(cut.catcher, extra: "\"reason\":" + JSONText.string(cut.reason.description))
      }
      fields.append("\"cut_off\":[" + items.joined(separator: ",") + "]")
    }
    if !notTried.isEmpty {
      fields.append("\"not_tried\":[" + notTried.map { Self.json($0) }.joined(separator: ",") + "]")
    }
    return "{" + fields.joined(separator: ",") + "}"
  }

  private static func json(_ catcher: CatcherReference, extra: String? = nil) -> String {
    var fields = [
      "\"kind\":" + JSONText.string(catcher.kind.rawValue), "\"index\":\(catcher.index)",
      "\"pattern\":" + JSONText.string(catcher.pattern),
    ]
    if let label = catcher.label { fields.append("\"label\":" + JSONText.string(label)) }
    if let extra { fields.append(extra) }
    return "{" + fields.joined(separator: ",") + "}"
  }
}
