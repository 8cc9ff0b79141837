import PatternMatching
import Synchronization

/// Routes a device's incoming deep links and push notifications to catchers registered by regular
/// expression, with Stargate's semantics:
///
/// - a deep link is matched on the URL's whole string, a push on the string in its `aps`
///   dictionary under ``notificationKey`` (`notification_id` unless configured otherwise); every
///   pattern matches the whole subject, case-insensitively (``RoutePattern``);
/// - the first catcher that matches, in registration order, takes it; a deep-link catcher may
///   decline (``DeepLinkDecision/declined``), and then the delegate gets it, not a later catcher;
/// - with no match the delegate gets it; with no delegate it is unhandled.
///
/// Every routing returns a ``RouteOutcome`` saying which happened. A routing is bounded: each
/// pattern by its ``MatchLimits`` (a catastrophic pattern is cut off, reported in
/// ``RouteOutcome/cutOff``, and routing goes on to the next catcher), and the routing as a whole
/// by a ``MatchBudget`` (after three cut-offs, or 15 ms of matching, the remaining catchers are
/// not tried and are reported in ``RouteOutcome/notTried``), so no pattern freezes a device.
///
/// Registrations return a ``RouteToken``; releasing it or calling ``RouteToken/cancel()`` removes
/// the catcher or the delegate (Stargate's weak references). Safe to use from any thread:
/// handlers run on the routing caller's thread, outside the router's lock, so a handler may
/// register or cancel.
public final class Router: Sendable {
  /// The `aps` key a push is matched on unless configured otherwise.
  public static let defaultNotificationKey = "notification_id"

  /// The `aps` key whose string value push catchers match.
  public let notificationKey: String
  /// The budget each routing starts with (a fresh pass every time).
  public let budget: MatchBudget
  private let state = Mutex(State())

  /// A router matching pushes on `aps[notificationKey]`, each routing under `budget`.
  public init(notificationKey: String = Router.defaultNotificationKey, budget: MatchBudget = MatchBudget()) {
    self.notificationKey = notificationKey
    self.budget = budget
  }

  /// Registers a deep-link catcher after those already registered: it takes a URL its pattern,
  /// `source` compiled as a ``RoutePattern``, matches whole (unless an earlier catcher does), and
  /// may decline it.
  /// - Parameter label: where the catcher comes from, reported in outcomes (`routes:3`).
  /// - Throws: ``PatternError`` when `source` does not compile.
  public func catchDeepLinks(
    matching source: String, label: String? = nil,
    _ handler: @escaping @Sendable (DeepLink) -> DeepLinkDecision
  ) throws(PatternError) -> RouteToken {
    register(.deepLink(handler), matching: try RoutePattern(source), label: label)
  }

  /// Registers a deep-link catcher with `pattern`, compiled once by the caller (with the
  /// ``MatchLimits`` it chose), as the form that takes its source does.
  public func catchDeepLinks(
    matching pattern: RoutePattern, label: String? = nil,
    _ handler: @escaping @Sendable (DeepLink) -> DeepLinkDecision
  ) -> RouteToken {
    register(.deepLink(handler), matching: pattern, label: label)
  }

  /// Registers a push catcher after those already registered: it takes a push whose notification
  /// identifier its pattern, `source` compiled as a ``RoutePattern``, matches whole (unless an
  /// earlier catcher does). Push catchers do not decline.
  /// - Throws: ``PatternError`` when `source` does not compile.
  public func catchPushes(
    matching source: String, label: String? = nil,
    _ handler: @escaping @Sendable (PushNotification) -> Void
  ) throws(PatternError) -> RouteToken {
    register(.push(handler), matching: try RoutePattern(source), label: label)
  }

  /// Registers a push catcher with `pattern`, compiled once by the caller (with the
  /// ``MatchLimits`` it chose), as the form that takes its source does.
  public func catchPushes(
    matching pattern: RoutePattern, label: String? = nil,
    _ handler: @escaping @Sendable (PushNotification) -> Void
  ) -> RouteToken {
    register(.push(handler), matching: pattern, label: label)
  }

  /// Makes `handler` the deep-link delegate, in place of any other, while the token lives: it
  /// gets the links no catcher took.
  public func setDeepLinkDelegate(_ handler: @escaping @Sendable (DeepLink) -> Void) -> RouteToken {
    setDelegate(\.deepLinkDelegate, handler)
  }

  /// Makes `handler` the push delegate, in place of any other, while the token lives: it gets the
  /// pushes no catcher took.
  public func setPushDelegate(_ handler: @escaping @Sendable (PushNotification) -> Void) -> RouteToken {
    setDelegate(\.pushDelegate, handler)
  }

  /// Puts `handler` in the delegate `slot`, in place of any other, while the token lives.
  private func setDelegate<Subject>(
    _ slot: WritableKeyPath<State, Delegate<Subject>?> & Sendable,
    _ handler: @escaping @Sendable (Subject) -> Void
  ) -> RouteToken {
    let identity = state.withLock { state in
      state.nextIdentity += 1
      state[keyPath: slot] = (state.nextIdentity, handler)
      return state.nextIdentity
    }
    return RouteToken { [weak self] in
      self?.state.withLock { state in
        if state[keyPath: slot]?.identity == identity { state[keyPath: slot] = nil }
      }
    }
  }

  /// The catchers registered now, deep links first, each kind in registration order.
  public var catchers: [CatcherReference] {
    let catchers = state.withLock { $0.catchers }
    return RouteKind.allCases.flatMap { kind in
      catchers.filter { $0.kind == kind }.enumerated().map { index, catcher in catcher.reference(index: index)
      }
    }
  }

  /// Routes `link`: to the first catcher that matches it and does not decline, else to the
  /// delegate, else nowhere; the handler runs before this returns.
  public func route(_ link: DeepLink) -> RouteOutcome {
    let (catchers, delegate) = state.withLock { state in
      (state.catchers.filter { $0.kind == .deepLink }, state.deepLinkDelegate?.handler)
    }
    let search = firstMatch(among: catchers, subject: link.url)
    var outcome = RouteOutcome(
      kind: .deepLink, subject: link.url, taker: .unhandled, cutOff: search.cutOff, notTried: search.notTried)
    if let (index, catcher) = search.match, case .deepLink(let handler) = catcher.handler {
      switch handler(link) {
      case .handled:
        outcome.taker = .catcher(catcher.reference(index: index))
        return outcome
      case .declined: outcome.declinedBy = catcher.reference(index: index)
      }
    }
    if let delegate {
      delegate(link)
      outcome.taker = .delegate
    }
    return outcome
  }

  /// Routes `push` by the string under ``notificationKey`` in its `aps` dictionary: to the first
  /// catcher that matches it, else to the delegate, else nowhere. A push without that string is
  /// matched by no catcher. The handler runs before this returns.
  public func route(_ push: PushNotification) -> RouteOutcome {
    let (catchers, delegate) = state.withLock { state in
      (state.catchers.filter { $0.kind == .push }, state.pushDelegate?.handler)
    }
    let subject = push.apsString(forKey: notificationKey)
    var outcome = RouteOutcome(kind: .push, subject: subject, taker: .unhandled)
    if let subject {
      let search = firstMatch(among: catchers, subject: subject)
      outcome.cutOff = search.cutOff
      outcome.notTried = search.notTried
      if let (index, catcher) = search.match, case .push(let handler) = catcher.handler {
        handler(push)
        outcome.taker = .catcher(catcher.reference(index: index))
        return outcome
      }
    }
    if let delegate {
      delegate(push)
      outcome.taker = .delegate
    }
    return outcome
  }

  /// The first of `catchers` whose pattern matches `subject`, within one fresh budget, with the
  /// catchers before it that were cut off, and those not tried once the budget stopped trying.
  private func firstMatch(among catchers: [Catcher], subject: String) -> Search {
    var budget = budget
    budget.begin()
    var search = Search()
    for (index, catcher) in catchers.enumerated() {
      guard let outcome = budget.match(catcher.pattern.compiled, subject) else {
        search.notTried.append(catcher.reference(index: index))
        continue
      }
      switch outcome {
      case .match:
        search.match = (index, catcher)
        return search
      case .noMatch: continue
      case .cutOff(let reason):
        search.cutOff.append(RouteOutcome.CutOff(catcher: catcher.reference(index: index), reason: reason))
      }
    }
    return search
  }

  /// Registers `handler`, of the kind it handles, after the catchers already registered: the
  /// catcher the public `catch` functions make, and a routes file's with its compiled pattern.
  func register(_ handler: CatcherHandler, matching pattern: RoutePattern, label: String?) -> RouteToken {
    let identity = state.withLock { state in
      state.nextIdentity += 1
      state.catchers.append(
        Catcher(identity: state.nextIdentity, pattern: pattern, label: label, handler: handler))
      return state.nextIdentity
    }
    return RouteToken { [weak self] in
      self?.state.withLock { state in state.catchers.removeAll { $0.identity == identity } }
    }
  }
}

/// What a catcher calls with what it takes: a deep link (which it may decline) or a push.
enum CatcherHandler: Sendable {
  case deepLink(@Sendable (DeepLink) -> DeepLinkDecision)
  case push(@Sendable (PushNotification) -> Void)
}

/// A registered catcher.
private struct Catcher: Sendable {
  let identity: UInt64
  let pattern: RoutePattern
  let label: String?
  let handler: CatcherHandler

  /// What it catches: what its handler handles.
  var kind: RouteKind {
    switch handler {
    case .deepLink: .deepLink
    case .push: .push
    }
  }

  func reference(index: Int) -> CatcherReference {
    CatcherReference(kind: kind, index: index, pattern: pattern.source, label: label)
  }
}

/// The router's registrations; catchers of both kinds in one list, in registration order.
private struct State: Sendable {
  var nextIdentity: UInt64 = 0
  var catchers: [Catcher] = []
  var deepLinkDelegate: Delegate<DeepLink>?
  var pushDelegate: Delegate<PushNotification>?
}

/// A delegate and the identity of the token that set it.
private typealias Delegate<Subject> = (identity: UInt64, handler: @Sendable (Subject) -> Void)

/// What matching the catchers of one routing found.
private struct Search {
  var match: (Int, Catcher)?
  var cutOff: [RouteOutcome.CutOff] = []
  var notTried: [CatcherReference] = []
}
