import DeviceRouting
import PeerSession
import Testing
import Wormhole
import WormholeVocabulary

@testable import DevicePairing

/// A running peer's routes (``LocalPeer/setRoutes(_:named:notificationKey:print:)``), reached
/// through its control requests as `push`/`open-url --device peer:NAME` reach it: the route
/// taken, the mailbox in the peer's folder, and the record in its traffic journal.
@Suite struct LocalPeerRoutesTests {
  static let routesText = """
    deep-link  myapp://item/\\d+  pass item
    deep-link  myapp://admin/.*  decline
    push       promo-.*          pass promo coordinated-file
    delegate                     print
    """

  /// A running peer `desk` of service `chat`, with `routes` when given; its prints collected.
  final class RoutedPeer: Sendable {
    let peer: LocalPeer
    let printed = Collector<DeviceRoutes.Printed>()

    init(home: String, routes: String?) throws {
      peer = try LocalPeer(name: PeerName("desk"), service: ServiceType("chat"), home: home)
      if let routes {
        let printed = printed
        try peer.setRoutes(try RoutesFile.parse(routes, file: "app.routes"), named: "app.routes") {
          printed.append($0)
        }
      }
      try peer.start(advertising: nil, policy: .never, browsing: false)
    }

    /// A control request, as the verbs send it, and its answer.
    func request(_ fields: [[UInt8]]) -> PeerControlMessage { peer.perform(PeerControlMessage(fields)) }

    /// The routed delivery of an `ok` answer.
    func routed(_ fields: [[UInt8]]) throws -> RoutedDelivery {
      let answer = request(fields)
      #expect(answer.text(0) == "ok", "\(answer.text(2))")
      return try #require(RoutedDelivery(peerAnswer: answer.text(1)))
    }

    /// The wormhole of the peer's own folder: its mailboxes and its traffic journal.
    func wormhole() throws -> Wormhole { try Wormhole(directory: peer.directory.peerPath(peer.identity.id)) }

    func stop() { peer.stop() }
  }

  static func push(_ identifier: String) -> [[UInt8]] {
    [Array("push".utf8), Array(#"{"aps":{"alert":"hi","notification_id":"\#(identifier)"}}"#.utf8)]
  }

  static func open(_ url: String) -> [[UInt8]] { [Array("open-url".utf8), Array(url.utf8)] }

  @Test func aPushGoesToItsCatcherAndADeclinedLinkToTheDelegateBothRecorded() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let desk = try RoutedPeer(home: home.path, routes: Self.routesText)
    defer { desk.stop() }
    let label = "peer:" + PeerJournal.label(desk.peer.identity)
    #expect(desk.peer.routesLabel == label)

    let promo = try desk.routed(Self.push("PROMO-7"))
    #expect(promo.description == #"catcher 0 "promo-.*" (app.routes:3)"#, "\(promo)")
    #expect(promo.failure == nil)
    let wormhole = try desk.wormhole()
    guard case .dictionary(let entries)? = try wormhole.message(withIdentifier: "promo") else {
      Issue.record("no dictionary in the promo mailbox")
      return
    }
    #expect(entries.contains { $0.key == .string("aps") })

    let declined = try desk.routed(Self.open("myapp://admin/users"))
    #expect(declined.description == #"delegate, declined by catcher 1 "myapp://admin/.*" (app.routes:2)"#)
    #expect(declined.json.contains(#""taken":"delegate""#))
    #expect(desk.printed.values.map(\.delivery) == [.deepLink(try DeepLink("myapp://admin/users"))])
    let item = try desk.routed(Self.open("myapp://item/42"))
    #expect(item.description.hasPrefix("catcher 0"), "\(item)")
    #expect(try wormhole.message(withIdentifier: "item") == .string("myapp://item/42"))

    let records = try wormhole.trafficRecords().filter { $0.kind == .push || $0.kind == .deepLink }
    #expect(records.map(\.kind) == [.push, .deepLink, .deepLink])
    #expect(records.map(\.identifier) == ["promo", "", "item"])
    #expect(records.allSatisfy { $0.device == label && $0.outcome == .ok })
    #expect(records[0].transiting == "coordinated-file" && records[0].transfer != nil)
    #expect(records[0].route == promo.json && records[1].route == declined.json)
    #expect(records[1].payload == "myapp://admin/users")
  }

  @Test func withoutRoutesEveryDeliveryIsUnhandledAndABadOneIsRefused() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let desk = try RoutedPeer(home: home.path, routes: nil)
    defer { desk.stop() }
    #expect(try desk.routed(Self.push("x")).description == "unhandled")
    #expect(try desk.routed(Self.open("myapp://item/1")).description == "unhandled")
    let records = try desk.wormhole().trafficRecords()
    #expect(records.map(\.kind) == [.push, .deepLink])
    #expect(records.first?.route == #"{"taken":"unhandled","subject":"x"}"#)
    // A payload or a URL that is refused is an error of code 2, and no delivery.
    let big = desk.request([
      Array("push".utf8), Array("{\"aps\":{}}".utf8) + [UInt8](repeating: 32, count: 5000),
    ])
    #expect(big.text(0) == "error" && big.text(1) == "2" && big.text(2).contains("4096"), "\(big.text(2))")
    let bad = desk.request(Self.open("no scheme"))
    #expect(bad.text(0) == "error" && bad.text(1) == "2", "\(bad.text(2))")
    #expect(try desk.wormhole().trafficRecords().count == 2)
  }

  @Test func aRouteThatPassesWithASessionTypeIsRefusedForAPeer() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let peer = try LocalPeer(name: PeerName("desk"), service: ServiceType("chat"), home: home.path)
    let file = try RoutesFile.parse(
      "push a.* pass a\npush b.* pass b session-message\ndelegate pass c session-context\n",
      file: "app.routes")
    #expect {
      try peer.setRoutes(file, named: "app.routes")
    } throws: { error in
      guard let errors = error as? RoutesFileErrors else { return false }
      return errors.errors.map(\.line) == [2, 3]
        && errors.description.hasPrefix("app.routes:2: a peer has no session to pass session-message")
    }
    // The routes were left as they were: none.
    #expect(peer.routes.withLock { $0 } == nil)
  }

  @Test func aRoutedDeliveryReadsBackFromAPeerAnswer() {
    for routed in [
      RoutedDelivery(description: "unhandled", json: #"{"taken":"unhandled"}"#),
      RoutedDelivery(description: "catcher 0", json: "{}", failure: "no space\nleft"),
      RoutedDelivery(description: "", json: "{}", failure: ""),
    ] {
      #expect(RoutedDelivery(peerAnswer: routed.peerAnswer) == routed)
    }
    #expect(RoutedDelivery(peerAnswer: "sent 3 bytes") == nil)
  }
}
