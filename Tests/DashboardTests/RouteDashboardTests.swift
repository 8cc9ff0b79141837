import Dashboard
import MailboxModel
import SnapshotSupport
import TerminalInput
import Testing
import WormholeVocabulary

private let snapshots = snapshotDirectory()
private let phoneGroup: FileName = "/w/pairs/desk/phone/AppGroup/group.example"

private let promoPayload = #"{"aps":{"alert":"50% off","notification_id":"promo-7"}}"#

private func catcherRoute(_ index: Int, _ pattern: String, label: String, subject: String) -> String {
  #"{"taken":"catcher","subject":"# + jsonString(subject)
    + #","catcher":{"kind":"push","index":\#(index),"pattern":"# + jsonString(pattern)
    + #","label":"# + jsonString(label) + "}}"
}

private func jsonString(_ text: String) -> String { JSONText.string(text) }

/// A push or deep-link record of desk's phone, as `DeviceRoutes` writes one.
private func routed(
  _ sequence: UInt64, _ kind: TrafficKind, identifier: String = "", route: String, payload: String?,
  bytes: Int? = nil, error: String? = nil, at milliseconds: Int64
) -> TrafficRecord {
  TrafficRecord(
    sequence: sequence, milliseconds: milliseconds, processIdentifier: 4242, sender: "device",
    transiting: "file", kind: kind, identifier: identifier, bytes: bytes ?? payload?.utf8.count ?? 0,
    outcome: error == nil ? .ok : .failed, error: error,
    details: TrafficDetails(device: "desk/phone", route: route, payload: payload))
}

private func deskPairs() -> [PairSnapshot] {
  [
    PairSnapshot(
      name: "desk", home: "/w", phone: .init(role: .phone, runningPID: 4242), watch: .init(role: .watch)),
    PairSnapshot(name: "travel", home: "/w", phone: .init(role: .phone), watch: .init(role: .watch)),
  ]
}

/// desk's phone group with a mailbox `promo`, the pairs, and the phone's routed traffic: a push
/// caught and passed, a deep link to the delegate after a decline, an unhandled push without a
/// notification id, a deep link whose catcher was cut off, and a push whose payload was not kept.
private func routedHarness(width: Int = 120, height: Int = 40, readOnly: Bool = false) -> DashboardHarness {
  var harness = DashboardHarness(width: width, height: height, readOnly: readOnly)
  let now = harness.now
  let records = [
    routed(
      1, .push, identifier: "promo",
      route: catcherRoute(0, "promo-.*", label: "app.routes:4", subject: "promo-7"), payload: promoPayload,
      at: now),
    routed(
      2, .deepLink,
      route:
        #"{"taken":"delegate","subject":"myapp://admin/users","declined_by":{"kind":"deep-link","index":1,"pattern":"myapp://admin/.*","label":"app.routes:2"}}"#,
      payload: "myapp://admin/users", at: now + 10),
    routed(3, .push, route: #"{"taken":"unhandled"}"#, payload: #"{"aps":{"alert":"hi"}}"#, at: now + 20),
    routed(
      4, .deepLink,
      route:
        #"{"taken":"delegate","subject":"myapp://slow/aaaa!","cut_off":[{"kind":"deep-link","index":2,"pattern":"myapp://slow/(a+)+$","label":"app.routes:3","reason":"PCRE2 match limit"}]}"#,
      payload: "myapp://slow/aaaa!", at: now + 30),
    routed(
      5, .push, route: catcherRoute(0, "promo-.*", label: "app.routes:4", subject: "promo-big"), payload: nil,
      bytes: 5000, at: now + 40),
  ]
  harness.send(
    .modelEvents(
      [
        .directoryAppeared(phoneGroup),
        .directoryScanned(phoneGroup, mailboxes: ["promo": archive(.string("x"))], initial: true),
        .journalRecords(directory: phoneGroup, records, initial: false),
      ], at: now + 50))
  harness.send(.pairs(deskPairs()))
  harness.send(.clock(now + 5_000))
  harness.effects = []
  return harness
}

private func routeForm(_ harness: DashboardHarness) -> RouteForm? {
  guard case .route(let form)? = harness.state.overlay else { return nil }
  return form
}

@Suite struct RouteTrafficPaneTests {
  /// At 120 columns the device, the subject and the route in the device's words; at 80 the
  /// compact route (`catcher 0`, `delegate cut`).
  @Test(arguments: [(120, 40), (80, 24)])
  func pushesAndDeepLinksShowTheirRoute(width: Int, height: Int) {
    let harness = routedHarness(width: width, height: height)
    expectSnapshot(harness.screen, named: "route-traffic-\(width)x\(height)", in: snapshots)
    #expect(harness.shows("push"), "\(harness)")
    #expect(harness.shows("deep-link"), "\(harness)")
    if width >= 120 {
      #expect(harness.shows("desk/phone"), "\(harness)")
      #expect(harness.shows(#"catcher 0 "promo-.*""#), "\(harness)")
      #expect(harness.shows("delegate, 1 declined"), "\(harness)")
      #expect(harness.shows("delegate, cut off"), "\(harness)")
      #expect(harness.shows(" unhandled "), "\(harness)")
    } else {
      #expect(harness.shows("[catcher 0] promo-7"), "\(harness)")
      #expect(harness.shows("[delegate cut]"), "\(harness)")
      #expect(harness.shows("[unhandled] (no id)"), "\(harness)")
    }
  }

  @Test func hostileSubjectsAreEscaped() {
    var harness = DashboardHarness(width: 120, height: 30)
    let url = "myapp://x/\u{1B}[31mred\u{202E}evil"
    let id = "promo\u{7}\u{200B}"
    let records = [
      routed(
        1, .deepLink, route: #"{"taken":"unhandled","subject":"# + jsonString(url) + "}", payload: url,
        at: harness.now),
      routed(
        2, .push, route: catcherRoute(0, "\u{1B}]0;x\u{7}", label: "a\nb", subject: id),
        payload: #"{"aps":{"notification_id":"# + jsonString(id) + "}}", at: harness.now + 1),
    ]
    harness.send(
      .modelEvents(
        [.directoryAppeared(phoneGroup), .journalRecords(directory: phoneGroup, records, initial: false)],
        at: harness.now + 5))
    let text = harness.lines.joined(separator: "\n")
    for raw in ["\u{1B}", "\u{202E}", "\u{7}", "\u{200B}"] {
      #expect(!text.contains(raw), "\(raw.unicodeScalars.first!.value) reached the screen")
    }
    #expect(harness.shows(#"catcher 0 "\u{1b}"#), "\(harness)")
    harness.type("<Tab><Tab>kk")
    let contents = harness.lines.joined(separator: "\n")
    #expect(!contents.contains("\u{1B}") && !contents.contains("\u{202E}"))
    #expect(harness.shows(#"URL: "myapp://x/\u{1b}[31mred\u{202e}evil""#), "\(harness)")
  }

  /// Selecting a push shows its route and payload in the contents pane; a deep link its URL; a
  /// push whose payload was not kept says so.
  @Test func selectingAnEntryShowsItsPayloadAndRoute() {
    var harness = routedHarness(width: 120, height: 40)
    harness.type("<Tab><Tab>gg")
    #expect(harness.state.trafficSelection != nil)
    let lines = harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }
    #expect(lines.contains { $0.hasPrefix("push notification to desk/phone") }, "\(lines)")
    #expect(lines.contains(#"notification id: "promo-7""#), "\(lines)")
    #expect(lines.contains(#"route: catcher 0 "promo-.*" (app.routes:4)"#), "\(lines)")
    #expect(lines.contains("passed to promo (file)"), "\(lines)")
    #expect(lines.contains { $0.hasPrefix("payload, \(promoPayload.utf8.count) of 4096 bytes") }, "\(lines)")
    #expect(lines.contains(#""notification_id": "promo-7""#), "\(lines)")
    expectSnapshot(harness.screen, named: "route-contents-120x40", in: snapshots)
    harness.type("jjjj")
    let notKept = harness.state.contentsLines().map { $0.pieces.map(\.text).joined() }
    #expect(notKept.contains { $0.hasPrefix("payload not kept") }, "\(notKept)")
    // Back to the tree: the mailbox again.
    harness.type("<Tab>")
    #expect(!harness.state.contentsLines().contains { $0.pieces.map(\.text).joined().hasPrefix("push") })
  }
}

@Suite struct RouteFormTests {
  @Test func aPushIsCheckedAsTypedAndSentToTheSelectedDevice() throws {
    var harness = routedHarness(width: 100, height: 30)
    harness.type("ju")  // the mailbox promo in desk's phone group
    var form = try #require(routeForm(harness))
    #expect(form.kind == .push && form.focus == .text)
    #expect(form.session.pair?.name == "desk" && form.session.role == .phone)
    #expect(form.problem?.hasPrefix("payload: type") == true)
    let checksBefore = form.checks
    harness.type("{")
    form = try #require(routeForm(harness))
    #expect(form.checks == checksBefore + 1)
    #expect(form.problem?.hasPrefix("payload: the payload is") == true, "\(form.problem ?? "")")
    harness.type(#""a":1}"#)
    form = try #require(routeForm(harness))
    #expect(form.checks == checksBefore + 7, "once per key")
    #expect(form.problem?.contains(#"no "aps" dictionary"#) == true, "\(form.problem ?? "")")
    #expect(harness.shows(#"a JSON object with an "aps" dictionary at the top level"#), "\(harness)")
    #expect(harness.shows("7 of 4096 bytes"), "\(harness)")
    harness.type("<Enter>")
    #expect(harness.effects.isEmpty && routeForm(harness) != nil)
    // Start again with a good payload.
    harness.type("<Esc>u")
    harness.send(.paste(promoPayload))
    form = try #require(routeForm(harness))
    #expect(form.problem == nil)
    #expect(
      harness.shows(#"notification id "promo-7": the first catcher matching it takes it"#), "\(harness)")
    harness.type("<Enter>")
    #expect(
      harness.effects == [
        .route(RouteSend(home: "/w", pair: "desk", role: .phone, delivery: .push(promoPayload)))
      ])
    #expect(harness.state.overlay == nil)
  }

  @Test func aPayloadOverTheLimitIsRefusedWithItsSize() throws {
    var harness = routedHarness(width: 100, height: 30)
    harness.type("ju")
    let filler = String(repeating: "x", count: 5000)
    harness.send(.paste(#"{"aps":{"alert":""# + filler + #""}}"#))
    let form = try #require(routeForm(harness))
    #expect(form.payloadBytes == 5020)
    #expect(form.problem == "payload: the payload is 5020 bytes; a push notification holds at most 4096")
    #expect(harness.shows("5020 of 4096 bytes: 924 too many"), "\(harness)")
    harness.type("<Enter>")
    #expect(harness.effects.isEmpty)
    // At the limit exactly it goes.
    let base = #"{"aps":{"alert":""}}"#
    let exact = RouteForm(
      text: #"{"aps":{"alert":""# + String(repeating: "y", count: 4096 - base.utf8.count) + #""}}"#,
      pairs: deskPairs(), selection: .pair("desk"), directory: nil, directories: [])
    #expect(exact.payloadBytes == 4096 && exact.problem == nil)
  }

  @Test func aURLIsOpenedOnTheOtherDeviceOrAnotherPair() throws {
    var harness = routedHarness(width: 100, height: 30)
    harness.type("ju<S-Tab><S-Tab><S-Tab><Right>")
    var form = try #require(routeForm(harness))
    #expect(form.kind == .deepLink && form.focus == .kind)
    harness.type("<Tab><Right><Tab><Right><Tab>")  // pair travel, its watch
    harness.type("no scheme")
    form = try #require(routeForm(harness))
    #expect(form.problem?.hasPrefix("URL: it contains white space") == true, "\(form.problem ?? "")")
    harness.send(.paste(""))
    harness.type("<C-u>myapp://item/42")
    form = try #require(routeForm(harness))
    #expect(form.problem == nil, "\(form.problem ?? "")")
    #expect(harness.shows("(travel:watch)"), "\(harness)")
    harness.type("<Enter>")
    #expect(
      harness.effects == [
        .route(RouteSend(home: "/w", pair: "travel", role: .watch, delivery: .deepLink("myapp://item/42")))
      ])
  }

  @Test func withoutAPairTheFormSaysHowToMakeOne() throws {
    var harness = DashboardHarness(width: 100, height: 30)
    harness.type("u")
    harness.send(.paste(promoPayload))
    let form = try #require(routeForm(harness))
    #expect(form.problem?.contains("wormhole-tui pair create NAME") == true)
    harness.type("<Enter>")
    #expect(harness.effects.isEmpty)
  }

  @Test func readOnlyRefusesThePushAndSaysSo() throws {
    var harness = routedHarness(width: 100, height: 30, readOnly: true)
    harness.type("ju")
    #expect(harness.state.overlay == nil)
    #expect(harness.state.status?.text.hasPrefix("read-only:") == true, "\(harness.state.status?.text ?? "")")
    // A form opened before (a replay, a form left open): Enter is refused all the same.
    harness.state.isReadOnly = false
    harness.type("u")
    harness.send(.paste(promoPayload))
    harness.state.isReadOnly = true
    harness.type("<Enter>")
    #expect(!harness.effects.contains { $0.writes }, "\(harness.effects)")
    #expect(
      harness.state.status?.text.hasPrefix("read-only: push to desk:phone refused") == true,
      "\(harness.state.status?.text ?? "")")
  }

  @Test(arguments: [(120, 40), (80, 24)])
  func theFormSnapshot(width: Int, height: Int) throws {
    var harness = routedHarness(width: width, height: height)
    harness.type("ju")
    harness.send(.paste(promoPayload))
    expectSnapshot(harness.screen, named: "route-form-\(width)x\(height)", in: snapshots)
  }

  @Test func theResultSaysTheRouteTakenOrWhyNot() {
    var harness = routedHarness(width: 100, height: 30)
    let send = RouteSend(home: "/w", pair: "desk", role: .phone, delivery: .push(promoPayload))
    harness.send(.effectFinished(.done(.route(send), detail: #"route catcher 0 "promo-.*" (app.routes:4)"#)))
    #expect(harness.state.status?.text == #"pushed to desk:phone: route catcher 0 "promo-.*" (app.routes:4)"#)
    harness.send(.effectFinished(.failed(.route(send), "desk:phone is not running")))
    #expect(harness.state.status?.text == "push failed: desk:phone is not running (push to desk:phone)")
    #expect(harness.state.status?.isError == true)
  }
}

@Suite struct RouteReplayTests {
  @Test func replayResendsAPushToTheSameOrAnotherDevice() throws {
    var harness = routedHarness(width: 100, height: 30)
    harness.type("<Tab><Tab>ggr")
    var form = try #require(routeForm(harness))
    #expect(form.replayOf != nil && form.kind == .push && form.text.text == promoPayload)
    #expect(form.session.pair?.name == "desk" && form.session.role == .phone)
    #expect(form.title.hasPrefix(#"Replay push "promo-7" (traffic entry"#))
    harness.type("<Enter>")
    let id = try #require(form.replayOf)
    #expect(
      harness.effects == [
        .route(RouteSend(home: "/w", pair: "desk", role: .phone, delivery: .push(promoPayload), replayOf: id))
      ])
    #expect(harness.effects.first?.verb == "replay")
    // The deep link after it, to the watch this time.
    harness.effects = []
    harness.type("jr")
    form = try #require(routeForm(harness))
    #expect(form.kind == .deepLink && form.text.text == "myapp://admin/users")
    let link = try #require(form.replayOf)
    harness.type("<S-Tab><Right><Enter>")
    #expect(
      harness.effects == [
        .route(
          RouteSend(
            home: "/w", pair: "desk", role: .watch, delivery: .deepLink("myapp://admin/users"), replayOf: link
          ))
      ])
  }

  @Test func aPayloadNotKeptCannotBeReplayedAndTheReasonIsSaid() {
    var harness = routedHarness(width: 100, height: 30)
    harness.type("<Tab><Tab>Gr")
    #expect(harness.state.overlay == nil)
    #expect(
      harness.state.status?.text.hasPrefix("replay refused: traffic entry") == true
        && harness.state.status?.text.contains("payload was not kept") == true,
      "\(harness.state.status?.text ?? "")")
  }
}
