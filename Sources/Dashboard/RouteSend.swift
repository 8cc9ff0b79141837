import ArchivedValues
import WormholeVocabulary

/// A push notification sent to, or a URL opened on, one device: a device of a pair
/// (`PAIR:ROLE`) or a running peer (`peer:NAME`), what the route form and a replay of a push or
/// deep-link traffic entry ask for. The runtime sends it to the running device or peer, which
/// routes it and answers with the route taken.
public struct RouteSend: Sendable, Hashable {
  /// What is delivered.
  public enum Delivery: Sendable, Hashable {
    /// A push notification: its JSON payload as typed (checked: an object with an `aps`
    /// dictionary, at most 4096 bytes).
    case push(String)
    /// A deep link: the URL (checked: a scheme, no spaces or control characters).
    case deepLink(String)
  }

  /// The device or peer that receives it.
  public var target: RouteTarget
  public var delivery: Delivery
  /// The traffic entry this sends again, for a replay.
  public var replayOf: UInt64?

  public init(to target: RouteTarget, delivery: Delivery, replayOf: UInt64? = nil) {
    self.target = target
    self.delivery = delivery
    self.replayOf = replayOf
  }

  /// To the device `role` of the pair `pair` of the pair store under `home`.
  public init(
    home: String, pair: String, role: PairSnapshot.Role, delivery: Delivery, replayOf: UInt64? = nil
  ) {
    self.init(to: .device(home: home, pair: pair, role: role), delivery: delivery, replayOf: replayOf)
  }

  /// The device as a selector names it, escaped: `r1:phone`, `peer:lamp`.
  public var shownTarget: String { target.shown }

  /// `push` or `open-url`, as the verbs are named.
  public var verb: String {
    switch delivery {
    case .push: return "push"
    case .deepLink: return "open-url"
    }
  }

  /// The operation in a few words: "push to r1:phone", "replay of traffic entry 7 as open-url on
  /// r1:phone".
  var operation: String {
    let base: String
    switch delivery {
    case .push: base = "push to \(shownTarget)"
    case .deepLink: base = "open-url on \(shownTarget)"
    }
    return replayOf.map { "replay of traffic entry \($0) as \(base)" } ?? base
  }

  /// What the message log says when the device answered; the route follows.
  var doneText: String {
    let what: String
    switch delivery {
    case .push: what = "pushed to \(shownTarget)"
    case .deepLink(let url):
      what = "opened \(Formatting.middleTruncated(DisplayText.quoted(url), toColumns: 60)) on \(shownTarget)"
    }
    return (replayOf.map { "replayed traffic entry \($0): " } ?? "") + what
  }
}
