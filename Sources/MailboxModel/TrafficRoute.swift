import ArchivedValues
import WormholeVocabulary

/// The route a push notification or a deep link took on a simulated device, read back from a
/// traffic record's `route` object (`RouteOutcome.json`'s form:
/// `{"taken":"catcher"|"delegate"|"unhandled","subject":…,"catcher":{…},"declined_by":{…},`
/// `"cut_off":[…],"not_tried":[…]}`), so that the model, the dashboard and the verbs say it in
/// the words the device said it, without depending on the routing module.
public struct TrafficRoute: Sendable, Hashable, CustomStringConvertible {
  /// One catcher as the route names it.
  public struct Catcher: Sendable, Hashable, NamedCatcher {
    public var index: Int
    public var pattern: String
    /// Where it came from (a routes file's `FILE:LINE`), when it has a label.
    public var label: String?
    /// Why it was cut off, for a catcher of ``TrafficRoute/cutOff``.
    public var reason: String?

    public init(index: Int, pattern: String, label: String? = nil, reason: String? = nil) {
      self.index = index
      self.pattern = pattern
      self.label = label
      self.reason = reason
    }
  }

  /// Who took it: `catcher`, `delegate` or `unhandled` (another word from a newer writer is kept).
  public var taken: String
  /// What the patterns were matched against: the URL, or the push's notification identifier.
  public var subject: String?
  /// The catcher that took it.
  public var catcher: Catcher?
  /// The catcher that matched and declined it.
  public var declinedBy: Catcher?
  /// Catchers cut off by the match limits.
  public var cutOff: [Catcher]
  /// How many catchers were not tried once the routing's budget was spent.
  public var notTriedCount: Int
  /// Whether it was a push without a notification identifier (no catcher could match it): the
  /// route's object does not say what was routed, its record's kind does.
  public var lacksNotificationIdentifier = false

  public init(
    taken: String, subject: String? = nil, catcher: Catcher? = nil, declinedBy: Catcher? = nil,
    cutOff: [Catcher] = [], notTriedCount: Int = 0
  ) {
    self.taken = taken
    self.subject = subject
    self.catcher = catcher
    self.declinedBy = declinedBy
    self.cutOff = cutOff
    self.notTriedCount = notTriedCount
  }

  /// The route in `json` (one object's text), or `nil` when it is not one with a `taken` string;
  /// `kind` is the record's (a push without a subject lacks a notification identifier).
  public init?(json: String, kind: TrafficKind? = nil) {
    let parsed = Array(json.utf8).withUnsafeBufferPointer { buffer in
      try? JSONParser(maximumDepth: 8).parse(buffer)
    }
    guard case .dictionary(let entries)? = parsed, case .string(let taken)? = Self.value("taken", in: entries)
    else { return nil }
    self.taken = taken
    if case .string(let subject)? = Self.value("subject", in: entries) { self.subject = subject }
    catcher = Self.value("catcher", in: entries).flatMap(Self.catcher)
    declinedBy = Self.value("declined_by", in: entries).flatMap(Self.catcher)
    if case .array(let items)? = Self.value("cut_off", in: entries) {
      cutOff = items.compactMap(Self.catcher)
    } else {
      cutOff = []
    }
    if case .array(let items)? = Self.value("not_tried", in: entries) {
      notTriedCount = items.count
    } else {
      notTriedCount = 0
    }
    lacksNotificationIdentifier = kind?.rawValue == TrafficKind.push.rawValue && subject == nil
  }

  /// Whether some catchers could not be decided (cut off, or not tried).
  public var isCutOff: Bool { !cutOff.isEmpty || notTriedCount > 0 }

  /// Who took it in a word or two: `catcher 0`, `delegate`, `unhandled`.
  public var taker: String {
    if taken == "catcher", let catcher { return "catcher \(catcher.index)" }
    return DisplayText.field(taken)
  }

  /// The route in a few words, escaped for a terminal, as the device said it
  /// (`RouteOutcome.description`): `catcher 0 "promo-.*" (app.routes:4)`, `delegate, declined
  /// by catcher 1 …`, `unhandled; cut off: catcher 2 … (PCRE2 match limit)`.
  public var description: String {
    var text = taken == "catcher" ? (catcher?.description ?? "catcher") : DisplayText.field(taken)
    if let declinedBy { text += ", declined by \(declinedBy.description)" }
    if lacksNotificationIdentifier { text += ", no notification identifier" }
    if !cutOff.isEmpty {
      text +=
        "; cut off: "
        + cutOff.map { "\($0.description) (\(DisplayText.escaped($0.reason ?? "cut off")))" }.joined(
          separator: ", ")
    }
    if notTriedCount > 0 { text += "; not tried: \(notTriedCount) catcher\(notTriedCount == 1 ? "" : "s")" }
    return text
  }

  /// The route in fewer words, for a traffic pane's route column: the catcher's pattern without
  /// its label (`catcher 0 "promo-.*"`), `delegate, 1 declined`, then `, cut off` when some
  /// catchers were not decided.
  public var shortDescription: String {
    var text: String
    if taken == "catcher", let catcher {
      text = catcher.patternDescription
    } else {
      text = DisplayText.field(taken)
    }
    if let declinedBy { text += ", \(declinedBy.index) declined" }
    if isCutOff { text += ", cut off" }
    return text
  }

  /// The route in at most 14 columns, for a narrow traffic pane: the taker, and `cut` when some
  /// catchers were not decided (`catcher 0 cut`, `unhandled cut`).
  public var compactDescription: String { isCutOff ? taker + " cut" : taker }

  private static func value(_ key: String, in entries: [ArchivedEntry]) -> ArchivedValue? {
    entries.last { $0.key == .string(key) }?.value
  }

  private static func catcher(_ value: ArchivedValue) -> Catcher? {
    guard case .dictionary(let entries) = value else { return nil }
    let index: Int
    switch Self.value("index", in: entries) {
    case .integer(let number)?: index = Int(clamping: number)
    case .unsignedInteger(let number)?: index = Int(clamping: number)
    default: return nil
    }
    guard case .string(let pattern)? = Self.value("pattern", in: entries) else { return nil }
    var label: String?
    if case .string(let text)? = Self.value("label", in: entries) { label = text }
    var reason: String?
    if case .string(let text)? = Self.value("reason", in: entries) { reason = text }
    return Catcher(index: index, pattern: pattern, label: label, reason: reason)
  }
}

extension TrafficEntry {
  /// Whether the entry is a push notification or a deep link delivered to a simulated device.
  public var isRouted: Bool {
    kind.rawValue == TrafficKind.push.rawValue || kind.rawValue == TrafficKind.deepLink.rawValue
  }

  /// The route a push or a deep link took, when the record says it.
  public var route: TrafficRoute? {
    details.route.flatMap { TrafficRoute(json: $0, kind: TrafficKind(rawValue: kind.rawValue)) }
  }

  /// What a push or a deep link carried (the push's JSON payload, or the URL), when the record
  /// kept it (at most 4096 bytes are).
  public var payload: String? { details.payload }

  /// Whether the record kept what the push or deep link carried, so that it can be sent again.
  public var isPayloadKept: Bool { details.payload != nil }

  /// What a push or a deep link was matched on: the route's subject (the notification
  /// identifier, or the URL), else the URL kept as the payload of a deep link.
  public var routeSubject: String? {
    if let subject = route?.subject { return subject }
    return kind.rawValue == TrafficKind.deepLink.rawValue ? details.payload : nil
  }
}
