import ArchivedValues
import DeviceRouting
import TerminalInput
import WormholeVocabulary

/// The route form (`u`): a push notification sent to a device, or a URL opened on one, as
/// `wormhole-tui push` and `open-url` do. The device is a pair's (`PAIR:ROLE`) or a running
/// peer (`peer:NAME`), defaulted from the selection (a device row, a pair row's phone, a
/// mailbox in a device's group, a peer row, a peer's folder, or the device a replayed entry
/// went to). The device field offers every pair, then every running peer, switched with ←/→
/// (or a first letter); a pair's role is switched in the next field, as in the session forms.
/// A peer is offered by the selector the verbs accept for it (``RouteTarget/Peer/selector``).
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

  /// The fields in Tab order: a peer has no role to choose.
  public var fields: [Field] { peerIndex == nil ? Field.allCases : [.kind, .pair, .text] }

  public var kind: Kind
  /// The pair and the device (``SessionFields/role``) it goes to, when no peer is chosen.
  public var session: SessionFields
  /// The running peers offered after the pairs, by service and name.
  public private(set) var peers: [RouteTarget.Peer]
  /// The chosen peer among ``peers``; `nil` when a pair's device is chosen.
  public private(set) var peerIndex: Int?
  /// What the form says of its device before the rules: a replayed entry's peer that no longer
  /// runs.
  public private(set) var note: String?
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

  /// A form opened on `selection` (or a mailbox of `directory`) among `pairs` and the running
  /// `peers`, with `text` typed for `kind`; `device` is the device a replayed entry went to
  /// (`<pair>/<role>` or `peer:NAME#xxxx`, as records name it).
  public init(
    kind: Kind = .push, text: String = "",
    title: String =
      "To a running device of a pair or a running peer, which routes it and answers with the route taken",
    replayOf: UInt64? = nil,
    pairs: [PairSnapshot], peers running: [PeerSnapshot] = [], selection: TreeNodeID?, directory: FileName?,
    directories: [FileName], device: String? = nil
  ) {
    self.kind = kind
    self.title = title
    self.replayOf = replayOf
    payload = TextField(kind == .push ? text : "")
    url = TextField(kind == .deepLink ? text : "")
    session = SessionFields(
      pairs: pairs, selection: selection, directory: directory, directories: directories)
    let sorted = running.sorted { ($0.service, $0.name, $0.id) < ($1.service, $1.name, $1.id) }
    peers = sorted.map { RouteTarget.Peer($0, among: sorted) }
    peerIndex = Self.peerIndex(
      among: sorted, selection: selection, directory: directory, device: device,
      hasPair: session.pair != nil)
    if let device, device.hasPrefix(Self.peerPrefix), peerIndex == nil {
      note =
        "the entry went to \(DisplayText.field(device)), which no longer runs: choose another device"
    }
    // A replay goes to the device the entry went to (`<pair>/<role>`) unless switched.
    if let device, !device.hasPrefix(Self.peerPrefix), let mark = device.lastIndex(of: "/"),
      let role = PairSnapshot.Role(rawValue: String(device[device.index(after: mark)...]))
    {
      session.choosePair(named: String(device[..<mark]))
      session.role = role
    }
    check()
  }

  private static let peerPrefix = DeviceSelector.peerPrefix

  /// The peer the form starts on: the replayed entry's, the selected one (or the first of a
  /// selected service), the one whose folder the form was opened on; the first peer when there
  /// is no pair.
  private static func peerIndex(
    among peers: [PeerSnapshot], selection: TreeNodeID?, directory: FileName?, device: String?,
    hasPair: Bool
  ) -> Int? {
    if let device {
      guard device.hasPrefix(peerPrefix) else { return nil }
      let label = String(device.dropFirst(peerPrefix.count))
      let named = peers.indices.filter { peers[$0].label == label }
      return named.first { peers[$0].folder == directory?.lossyText } ?? named.first
    }
    switch selection {
    case .peer(let service, let id)?:
      if let index = peers.firstIndex(where: { $0.service == service && $0.id == id }) { return index }
    case .peerService(let service)?:
      if let index = peers.firstIndex(where: { $0.service == service }) { return index }
    default: break
    }
    if let directory, let index = peers.firstIndex(where: { $0.folder == directory.lossyText }) {
      return index
    }
    return hasPair || peers.isEmpty ? nil : 0
  }

  /// Where it goes, or `nil` when there is neither a pair nor a running peer.
  public var target: RouteTarget? {
    if let peerIndex { return .peer(peers[peerIndex]) }
    return session.pair.map { .device(home: $0.home, pair: $0.name, role: session.role) }
  }

  /// The device field's label: `pair`, or `peer` when a peer is chosen.
  public var deviceLabel: String { peerIndex == nil ? "pair" : "peer" }

  /// The device field as shown: `◂ desk ▸`, `◂ peer:lamp ▸ (service chat)`.
  public var deviceChoice: String {
    if let peerIndex {
      let peer = peers[peerIndex]
      return "◂ peer:\(DisplayText.field(peer.selector)) ▸ (service \(DisplayText.field(peer.service)))"
    }
    guard let pair = session.pair else { return "(no pair under the home, and no running peer)" }
    return "◂ " + DisplayText.field(pair.name) + " ▸" + (peers.isEmpty ? "" : " (then the running peers)")
  }

  /// Chooses the next (`step` 1) or previous (-1) device: the pairs, then the peers.
  mutating func chooseDevice(_ step: Int) {
    let pairCount = session.pairs.count
    let count = pairCount + peers.count
    guard count > 0 else { return }
    let position = peerIndex.map { pairCount + $0 } ?? session.pairIndex
    choose((position + step + count) % count)
  }

  /// Chooses the next device after the current one whose shown name starts with `character`
  /// (a pair's name, or a peer's selector after `peer:`), if any.
  mutating func chooseDevice(startingWith character: Character) {
    let pairCount = session.pairs.count
    let names = session.pairs.map(\.name) + peers.map(\.selector)
    guard !names.isEmpty else { return }
    let position = peerIndex.map { pairCount + $0 } ?? session.pairIndex
    let wanted = String(character).lowercased()
    for offset in 1...names.count {
      let index = (position + offset) % names.count
      if names[index].lowercased().hasPrefix(wanted) {
        choose(index)
        return
      }
    }
  }

  private mutating func choose(_ position: Int) {
    if position < session.pairs.count {
      peerIndex = nil
      session.choosePair(named: session.pairs[position].name)
    } else {
      peerIndex = position - session.pairs.count
      if focus == .role { focus = .pair }
    }
  }

  /// The field being typed into for the kind.
  public var text: TextField { kind == .push ? payload : url }

  /// The payload's size in bytes of UTF-8.
  public var payloadBytes: Int { payload.text.utf8.count }

  /// The lines under the fields, as typed: the rule, the size against the limit, and what a
  /// device will match.
  public var guidance: [String] {
    (note.map { [$0] } ?? []) + ruleLines
  }

  private var ruleLines: [String] {
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
    if target == nil {
      return "pushes and deep links go to a device of a pair or a running peer, and there is none: "
        + "create a pair with wormhole-tui pair create NAME, or start a peer with wormhole-tui peer run"
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
    guard problem == nil, let target else { return nil }
    let delivery: RouteSend.Delivery = kind == .push ? .push(payload.text) : .deepLink(url.text)
    return .route(RouteSend(to: target, delivery: delivery, replayOf: replayOf))
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
      case .pair: chooseDevice(step)
      case .role: session.switchRole()
      case .text: break
      }
    case .character(" ") where focus == .pair:
      chooseDevice(1)
    case .character(let character) where focus == .pair:
      chooseDevice(startingWith: character)
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
