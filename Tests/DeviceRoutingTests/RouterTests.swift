import PatternMatching
import Synchronization
import Testing

@testable import DeviceRouting

@Suite struct RouterTests {
  /// What the handlers of a test saw, in order.
  final class Log: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
  }

  static func link(_ url: String) throws -> DeepLink { try DeepLink(url) }

  static func push(_ identifier: String, key: String = "notification_id") throws -> PushNotification {
    try PushNotification(json: "{\"aps\":{\"alert\":\"hi\",\"\(key)\":\"\(identifier)\"}}")
  }

  @Test func theFirstMatchingCatcherInRegistrationOrderTakesIt() throws {
    let router = Router()
    let log = Log()
    let first = try router.catchDeepLinks(matching: "myapp://item/.*") { _ in
      log.add("first")
      return .handled
    }
    let second = try router.catchDeepLinks(matching: "myapp://item/\\d+") { _ in
      log.add("second")
      return .handled
    }
    let outcome = router.route(try Self.link("myapp://item/42"))
    #expect(log.all == ["first"])
    #expect(
      outcome.taker == .catcher(CatcherReference(kind: .deepLink, index: 0, pattern: "myapp://item/.*")))
    #expect(outcome.decidedAll)
    // The second takes what only it matches... and nothing the first one takes.
    first.cancel()
    #expect(
      router.route(try Self.link("myapp://item/7")).taker
        == .catcher(
          CatcherReference(kind: .deepLink, index: 0, pattern: "myapp://item/\\d+")))
    #expect(log.all == ["first", "second"])
    _ = second
  }

  @Test func aDeclinedLinkGoesToTheDelegateNotToALaterCatcher() throws {
    let router = Router()
    let log = Log()
    let decliner = try router.catchDeepLinks(matching: "myapp://.*", label: "routes:1") { _ in
      log.add("decliner")
      return .declined
    }
    let later = try router.catchDeepLinks(matching: "myapp://item") { _ in
      log.add("later")
      return .handled
    }
    let delegate = router.setDeepLinkDelegate { log.add("delegate \($0.url)") }
    let outcome = router.route(try Self.link("myapp://item"))
    #expect(log.all == ["decliner", "delegate myapp://item"])
    #expect(outcome.taker == .delegate)
    #expect(
      outcome.declinedBy
        == CatcherReference(kind: .deepLink, index: 0, pattern: "myapp://.*", label: "routes:1"))
    // Without a delegate, a declined link is unhandled, still naming who declined it.
    delegate.cancel()
    let unhandled = router.route(try Self.link("myapp://item"))
    #expect(unhandled.taker == .unhandled)
    #expect(unhandled.declinedBy?.index == 0)
    _ = (decliner, later)
  }

  @Test func noMatchGoesToTheDelegateAndWithoutOneIsUnhandled() throws {
    let router = Router()
    let log = Log()
    let catcher = try router.catchDeepLinks(matching: "myapp://item/\\d+") { _ in .handled }
    var outcome = router.route(try Self.link("other://x"))
    #expect(outcome.taker == .unhandled)
    #expect(outcome.declinedBy == nil)
    let delegate = router.setDeepLinkDelegate { log.add($0.url) }
    outcome = router.route(try Self.link("other://x"))
    #expect(outcome.taker == .delegate)
    #expect(log.all == ["other://x"])
    // A push delegate is a delegate of its own: pushes are still unhandled.
    #expect(router.route(try Self.push("n1")).taker == .unhandled)
    _ = (catcher, delegate)
  }

  @Test func patternsMatchCaseInsensitively() throws {
    let router = Router()
    let catcher = try router.catchDeepLinks(matching: "MyApp://Item/[a-z]+") { _ in .handled }
    #expect(router.route(try Self.link("myapp://ITEM/ABC")).taker.isCatcher)
    let push = try router.catchPushes(matching: "PROMO-.*") { _ in }
    #expect(router.route(try Self.push("promo-spring")).taker.isCatcher)
    _ = (catcher, push)
  }

  /// Stargate matches the URL's whole string: a pattern that matches a part only does not match.
  @Test func aPatternMatchingASubstringOnlyDoesNotMatch() throws {
    let router = Router()
    let catcher = try router.catchDeepLinks(matching: "item/\\d+") { _ in .handled }
    #expect(router.route(try Self.link("myapp://item/42")).taker == .unhandled)
    let whole = try router.catchDeepLinks(matching: ".*item/\\d+") { _ in .handled }
    #expect(router.route(try Self.link("myapp://item/42")).taker.isCatcher)
    #expect(router.route(try Self.link("myapp://item/42/edit")).taker == .unhandled)
    let pushes = try router.catchPushes(matching: "promo") { _ in }
    #expect(router.route(try Self.push("promo-spring")).taker == .unhandled)
    _ = (catcher, whole, pushes)
  }

  @Test func pushesAreMatchedOnTheNotificationIdentifierUnlessConfiguredOtherwise() throws {
    let router = Router()
    let log = Log()
    let catcher = try router.catchPushes(matching: "n-\\d+") {
      log.add($0.apsString(forKey: "notification_id") ?? "-")
    }
    let outcome = router.route(try Self.push("n-7"))
    #expect(outcome.taker.isCatcher)
    #expect(outcome.subject == "n-7")
    #expect(log.all == ["n-7"])
    // The same payload's "category" is not what the default router reads.
    #expect(router.route(try Self.push("n-7", key: "category")).taker == .unhandled)
    #expect(router.route(try Self.push("n-7", key: "category")).subject == nil)

    let configured = Router(notificationKey: "category")
    let byCategory = try configured.catchPushes(matching: "n-\\d+") { _ in }
    #expect(configured.notificationKey == "category")
    #expect(configured.route(try Self.push("n-7", key: "category")).taker.isCatcher)
    #expect(configured.route(try Self.push("n-7")).taker == .unhandled)
    _ = (catcher, byCategory)
  }

  @Test func aPushWhoseIdentifierIsNotAStringGoesToTheDelegate() throws {
    let router = Router()
    let log = Log()
    let catcher = try router.catchPushes(matching: ".*") { _ in log.add("catcher") }
    let delegate = router.setPushDelegate { _ in log.add("delegate") }
    let outcome = router.route(try PushNotification(json: #"{"aps":{"notification_id":42}}"#))
    #expect(outcome.taker == .delegate)
    #expect(outcome.subject == nil)
    #expect(log.all == ["delegate"])
    #expect(outcome.description == "delegate, no notification identifier")
    _ = (catcher, delegate)
  }

  /// The pattern of issue 12, on the subject of the issue: cut off by the match limit, never a
  /// freeze.
  @Test func theCatastrophicPatternIsCutOffOnItsSubject() throws {
    let pattern = try RoutePattern("(a+)+$")
    #expect(pattern.match(String(repeating: "a", count: 5_000) + "!") == .cutOff(.matchLimit))
    #expect(pattern.match(String(repeating: "a", count: 5_000)) == .match)
  }

  /// A pattern compiled by the caller is registered as it is, with the limits it was given: the
  /// same source under the interactive limits takes the link, under a caller's tiny ones it is
  /// cut off.
  @Test func aCatcherRegisteredWithACompiledPatternKeepsItsLimits() throws {
    let url = "myapp://" + String(repeating: "a", count: 12) + "!"
    let source = "myapp://(a+)+!"
    var tiny = MatchLimits.interactive
    tiny.steps = 1
    tiny.minimumStepsPerStart = 1
    let strict = Router()
    let cut = strict.catchDeepLinks(matching: try RoutePattern(source, limits: tiny)) { _ in .handled }
    #expect(strict.route(try Self.link(url)).cutOff.map(\.reason) == [.matchLimit])
    let plain = Router()
    let taken = try plain.catchDeepLinks(matching: source) { _ in .handled }
    #expect(plain.route(try Self.link(url)).taker != .unhandled)
    let pushes = Router()
    let push = pushes.catchPushes(matching: try RoutePattern("order-[0-9]+")) { _ in }
    #expect(pushes.catchers.map(\.pattern) == ["order-[0-9]+"])
    _ = (cut, taken, push)
  }

  @Test func aCatastrophicCatcherIsReportedCutOffAndRoutingGoesOn() throws {
    let router = Router()
    let log = Log()
    let url = "myapp://" + String(repeating: "a", count: 5_000) + "!"
    let catastrophic = try router.catchDeepLinks(matching: "myapp://(a+)+$", label: "routes:1") { _ in
      log.add("catastrophic")
      return .handled
    }
    var outcome = router.route(try Self.link(url))
    #expect(outcome.taker == .unhandled)
    #expect(
      outcome.cutOff == [
        RouteOutcome.CutOff(
          catcher: CatcherReference(kind: .deepLink, index: 0, pattern: "myapp://(a+)+$", label: "routes:1"),
          reason: .matchLimit)
      ])
    #expect(!outcome.decidedAll)
    // A later catcher still takes it, and the route says which one was cut off before it.
    let later = try router.catchDeepLinks(matching: "myapp://a+!") { _ in
      log.add("later")
      return .handled
    }
    outcome = router.route(try Self.link(url))
    #expect(outcome.taker == .catcher(CatcherReference(kind: .deepLink, index: 1, pattern: "myapp://a+!")))
    #expect(outcome.cutOff.map(\.catcher.index) == [0])
    #expect(log.all == ["later"])
    #expect(
      outcome.description.hasSuffix("; cut off: catcher 0 \"myapp://(a+)+$\" (routes:1) (PCRE2 match limit)"))
    _ = (catastrophic, later)
  }

  /// After three cut-offs (the budget's default), the routing gives the patterns up: the rest are
  /// not tried, and said to be.
  @Test func aRoutingGivesUpAfterTheBudgetsCutOffs() throws {
    let router = Router()
    let url = "myapp://" + String(repeating: "a", count: 5_000) + "!"
    var tokens: [RouteToken] = []
    for _ in 0..<3 { tokens.append(try router.catchDeepLinks(matching: "myapp://(a+)+$") { _ in .handled }) }
    tokens.append(try router.catchDeepLinks(matching: "myapp://.*") { _ in .handled })
    let delegate = router.setDeepLinkDelegate { _ in }
    let outcome = router.route(try Self.link(url))
    #expect(outcome.cutOff.map(\.catcher.index) == [0, 1, 2])
    #expect(outcome.notTried.map(\.index) == [3])
    #expect(outcome.taker == .delegate)
    #expect(outcome.description.hasSuffix("; not tried: 1 catcher"))
    _ = (tokens, delegate)
  }

  @Test func releasingATokenRemovesItsCatcher() throws {
    let router = Router()
    var token: RouteToken? = try router.catchDeepLinks(matching: "myapp://.*") { _ in .handled }
    #expect(router.catchers.count == 1)
    #expect(router.route(try Self.link("myapp://x")).taker.isCatcher)
    token = nil
    #expect(router.catchers.isEmpty)
    #expect(router.route(try Self.link("myapp://x")).taker == .unhandled)

    // cancel() does the same, once; the token says so.
    let explicit = try router.catchPushes(matching: ".*") { _ in }
    #expect(explicit.isActive)
    explicit.cancel()
    explicit.cancel()
    #expect(!explicit.isActive)
    #expect(router.route(try Self.push("x")).taker == .unhandled)

    // A delegate's token too; and a replaced delegate's old token no longer removes the new one.
    var delegate: RouteToken? = router.setPushDelegate { _ in }
    #expect(router.route(try Self.push("x")).taker == .delegate)
    delegate = nil
    #expect(router.route(try Self.push("x")).taker == .unhandled)
    let old = router.setPushDelegate { _ in }
    let new = router.setPushDelegate { _ in }
    old.cancel()
    #expect(router.route(try Self.push("x")).taker == .delegate)
    _ = (token, delegate, new)
  }

  /// Handlers run outside the router's lock: one may register and cancel.
  @Test func aHandlerMayRegisterAndCancel() throws {
    let router = Router()
    let registered = Mutex<RouteToken?>(nil)
    let token = try router.catchDeepLinks(matching: "myapp://first") { _ in
      let next = try? router.catchDeepLinks(matching: "myapp://second") { _ in .handled }
      registered.withLock { $0 = next }
      return .handled
    }
    #expect(router.route(try Self.link("myapp://first")).taker.isCatcher)
    #expect(router.route(try Self.link("myapp://second")).taker.isCatcher)
    token.cancel()
    #expect(router.catchers.map(\.pattern) == ["myapp://second"])
  }

  @Test func catchersAreListedByKindInRegistrationOrder() throws {
    let router = Router()
    let tokens = [
      try router.catchPushes(matching: "p1") { _ in },
      try router.catchDeepLinks(matching: "d1") { _ in .handled },
      try router.catchPushes(matching: "p2", label: "f:3") { _ in },
    ]
    #expect(
      router.catchers == [
        CatcherReference(kind: .deepLink, index: 0, pattern: "d1"),
        CatcherReference(kind: .push, index: 0, pattern: "p1"),
        CatcherReference(kind: .push, index: 1, pattern: "p2", label: "f:3"),
      ])
    _ = tokens
  }

  @Test func anOutcomeReadsAsJSON() throws {
    let outcome = RouteOutcome(
      kind: .deepLink, subject: "myapp://x", taker: .delegate,
      declinedBy: CatcherReference(kind: .deepLink, index: 0, pattern: "my\"app", label: "r:1"),
      cutOff: [
        .init(catcher: CatcherReference(kind: .deepLink, index: 1, pattern: "(a+)+$"), reason: .matchLimit)
      ])
    #expect(
      outcome.json
        == #"{"taken":"delegate","subject":"myapp://x","declined_by":{"kind":"deep-link","index":0,"pattern":"my\"app","label":"r:1"},"#
        + #""cut_off":[{"kind":"deep-link","index":1,"pattern":"(a+)+$","reason":"PCRE2 match limit"}]}"#)
    #expect(RouteOutcome(kind: .push, subject: nil, taker: .unhandled).json == #"{"taken":"unhandled"}"#)
    let caught = RouteOutcome(
      kind: .push, subject: "n\u{1B}", taker: .catcher(CatcherReference(kind: .push, index: 2, pattern: "n."))
    )
    #expect(
      caught.json
        == #"{"taken":"catcher","subject":"n\u001b","catcher":{"kind":"push","index":2,"pattern":"n."}}"#)
  }

  @Test func aBadPatternIsRefusedWithWhereItStops() {
    #expect(throws: PatternError.self) {
      try Router().catchDeepLinks(matching: "myapp://(") { _ in .handled }
    }
  }
}

extension RouteOutcome.Taker {
  var isCatcher: Bool {
    if case .catcher = self { return true }
    return false
  }
}
