import ArchivedValues
import DeviceRouting
import TerminalInput
import WormholeVocabulary

/// The route form (`u`): a push notification sent to a device of a pair, or a URL opened on
/// one, as `wormhole-tui push` and `open-url` do. The device is `PAIR:ROLE`, defaulted from the
/// selection (a device row, a pair row's phone, a mailbox in a device's group, or the device a
/// replayed entry went to) and switched with ←/→ as in the session forms.
///
/// What is typed is checked on every change, as the verbs check it (`DeviceRouting`'s
/// ``PushNotification`` and ``DeepLink``): a payload's size against 4096 bytes, whether it is a
/// JSON object with an `aps` dictionary, and the `aps.notification_id` catchers will match; a
/// URL's scheme. A payload is at most a few KiB to check (the size is checked before it is
/// parsed), so every key is checked at once.
public struct RouteForm: Sendable, FieldForm {
  /// What the form sends.
  public enum Kind: String, Sendable, CaseIterable {
    case push
    case deepLink = "deep link"
  }

  /// The form's fields in Tab order.
  public enum Field: Int, Sendable, CaseIterable {
    case kind, pair, role, text
  }

  /// The fields in Tab order: all of them, whatever the kind.
  public var fields: [Field] { Field.allCases }

  public var kind: Kind
  /// The pair and the device (``SessionFields/role``) it goes to.
  public var session: SessionFields
  /// The payload (JSON) or the URL, per kind: switching the kind keeps what was typed for each.
  public private(set) var payload: TextField
  public private(set) var url: TextField
  public var focus: Field = .text
  /// The form's first line: where it sends, or what a replay replays.
  public var title: String
  /// The traffic entry a replay sends again.
  public var replayOf: UInt64?
  /// How many times what was typed was checked: once per change.
  package private(set) var checks = 0
  /// The payload as checked when it last changed.
  public private(set) var pushCheck: Result<PushNotification, PushPayloadError>?
  /// Why the URL is refused, as checked when it last changed; `nil` when it is one.
  public private(set) var urlProblem: String?

  /// The key under `aps` that a device's push catchers match (the router's default).
  public static let notificationKey = "notification_id"

  /// A form opened on `selection` (or a mailbox of `directory`) among `pairs`, with `text` typed
  /// for `kind`.
  public init(
    kind: Kind = .push, text: String = "",
    title: String = "To a running device of a pair, which routes it and answers with the route taken",
    replayOf: UInt64? = nil,
    pairs: [PairSnapshot], selection: TreeNodeID?, directory: FileName?, directories: [FileName],
    device: String? = nil
  ) {
    self.kind = kind
    self.title = title
    self.replayOf = replayOf
    payload = TextField(kind == .push ? text : "")
    url = TextField(kind == .deepLink ? text : "")
    session = SessionFields(
      pairs: pairs, selection: selection, directory: directory, directories: directories)
    // A replay goes to the device the entry went to (`<pair>/<role>`) unless switched.
    if let device, let mark = device.lastIndex(of: "/"),
      let role = PairSnapshot.Role(rawValue: String(device[device.index(after: mark)...]))
    {
      session.choosePair(named: String(device[..<mark]))
      session.role = role
    }
    check()
  }

  /// The field being typed into for the kind.
  public var text: TextField { kind == .push ? payload : url }

  /// The payload's size in bytes of UTF-8.
  public var payloadBytes: Int { payload.text.utf8.count }

  /// The lines under the fields, as typed: the rule, the size against the limit, and what a
  /// device will match.
  public var guidance: [String] {
    switch kind {
    case .push:
      var lines = [
        "a JSON object with an \"aps\" dictionary at the top level (APNs' form: {\"aps\": {…}}); "
          + "catchers match aps.\(Self.notificationKey)",
        "\(payloadBytes) of \(PushNotification.maximumSize) bytes"
          + (payloadBytes > PushNotification.maximumSize
            ? ": \(payloadBytes - PushNotification.maximumSize) too many" : ""),
      ]
      if case .success(let push)? = pushCheck {
        if let id = push.apsString(forKey: Self.notificationKey) {
          lines.append("notification id \(DisplayText.quoted(id)): the first catcher matching it takes it")
        } else {
          lines.append(
            "no aps.\(Self.notificationKey): no catcher can match it; the delegate gets it, if any")
        }
        if let bundle = push.targetBundle { lines.append("meant for \(DisplayText.quoted(bundle))") }
      }
      return lines
    case .deepLink:
      return [
        "a URL with a scheme (myapp://…), spaces and control characters percent-encoded; "
          + "catchers match the whole URL, \(url.text.utf8.count) bytes"
      ]
    }
  }

  /// What stops the form from being sent, or `nil`.
  public var problem: String? {
    if session.pair == nil {
      return "pushes and deep links go to a device of a pair, and there is none under the home: "
        + "create one with wormhole-tui pair create NAME"
    }
    switch kind {
    case .push:
      if payload.text.isEmpty { return "payload: type the push's JSON ({\"aps\": {…}})" }
      if case .failure(let error)? = pushCheck { return "payload: \(error)" }
    case .deepLink:
      if let urlProblem { return "URL: \(urlProblem)" }
      if url.text.utf8.count > DeepLink.maximumWireBytes {
        return "URL: \(url.text.utf8.count) bytes; at most \(DeepLink.maximumWireBytes) are sent"
      }
    }
    return nil
  }

  /// The effect the form asks for as it stands, or `nil` when ``problem`` stops it.
  public var effect: DashboardEffect? {
    guard problem == nil, let pair = session.pair else { return nil }
    let delivery: RouteSend.Delivery = kind == .push ? .push(payload.text) : .deepLink(url.text)
    return .route(
      RouteSend(home: pair.home, pair: pair.name, role: session.role, delivery: delivery, replayOf: replayOf))
  }

  private mutating func check() {
    checks += 1
    switch kind {
    case .push:
      guard !payload.text.isEmpty else {
        pushCheck = nil
        return
      }
      do throws(PushPayloadError) {
        pushCheck = .success(try PushNotification(json: payload.text))
      } catch {
        pushCheck = .failure(error)
      }
    case .deepLink:
      urlProblem = url.text.isEmpty ? "type the URL to open (myapp://…)" : DeepLink.problem(with: url.text)
    }
  }

  static let pasteFields = "the payload or the URL"

  /// Pastes into the payload or the URL when it has the focus; returns whether it took the paste.
  mutating func paste(_ pasted: String) throws(TextField.PasteError) -> Bool {
    guard focus == .text else { return false }
    if kind == .push { try payload.paste(pasted) } else { try url.paste(pasted) }
    check()
    return true
  }

  /// Handles a key; returns the effect when Enter sends a valid form.
  mutating func handle(_ key: Key) -> (effect: DashboardEffect?, done: Bool) {
    if let step = navigate(key) { return step }
    switch key {
    case .left where focus != .text, .right where focus != .text:
      let step = key == .left ? -1 : 1
      switch focus {
      case .kind:
        kind = kind == .push ? .deepLink : .push
        check()
      case .pair: session.choosePair(step)
      case .role: session.switchRole()
      case .text: break
      }
    case .character(" ") where focus == .role || focus == .kind:
      if focus == .role {
        session.switchRole()
      } else {
        kind = kind == .push ? .deepLink : .push
        check()
      }
    default:
      guard focus == .text else { break }
      let changed = kind == .push ? payload.handle(key) : url.handle(key)
      if changed { check() }
    }
    return (nil, false)
  }
}
