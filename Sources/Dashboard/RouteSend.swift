import ArchivedValues
import WormholeVocabulary

/// A push notification sent to, or a URL opened on, one device of a pair (`PAIR:ROLE`): what
/// the route form and a replay of a push or deep-link traffic entry ask for. The runtime sends
/// it to the running device, which routes it and answers with the route taken.
public struct RouteSend: Sendable, Hashable {
  /// What is delivered.
  public enum Delivery: Sendable, Hashable {
    /// A push notification: its JSON payload as typed (checked: an object with an `aps`
    /// dictionary, at most 4096 bytes).
    case push(String)
    /// A deep link: the URL (checked: a scheme, no spaces or control characters).
    case deepLink(String)
  }

  /// The home whose pair store holds the pair.
  public var home: String
  /// The pair's name, as read from disk (shown through `DisplayText`).
  public var pair: String
  /// The device that receives it.
  public var role: PairSnapshot.Role
  public var delivery: Delivery
  /// The traffic entry this sends again, for a replay.
  public var replayOf: UInt64?

  public init(
    home: String, pair: String, role: PairSnapshot.Role, delivery: Delivery, replayOf: UInt64? = nil
  ) {
    self.home = home
    self.pair = pair
    self.role = role
    self.delivery = delivery
    self.replayOf = replayOf
  }

  /// The device as a selector names it, escaped: `r1:phone`.
  public var target: String { DisplayText.field(pair) + ":" + role.rawValue }

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
    case .push: base = "push to \(target)"
    case .deepLink: base = "open-url on \(target)"
    }
    return replayOf.map { "replay of traffic entry \($0) as \(base)" } ?? base
  }

  /// What the message log says when the device answered; the route follows.
  var doneText: String {
    let what: String
    switch delivery {
    case .push: what = "pushed to \(target)"
    case .deepLink(let url):
      what = "opened \(Formatting.middleTruncated(DisplayText.quoted(url), toColumns: 60)) on \(target)"
    }
    return (replayOf.map { "replayed traffic entry \($0): " } ?? "") + what
  }
}
