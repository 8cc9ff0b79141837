import Dashboard
import DashboardRuntime
import DevicePairing
import DeviceSession
import MailboxModel
import MailboxWatcher
import Synchronization
import TestSupport
import Testing
import Wormhole
import WormholeVocabulary

@testable import DeviceRouting

/// Pair operations that route as scripted and remember what they were asked to route.
private final class FakeRouteOperations: PairOperations {
  private let requests = Mutex<[PairRouteRequest]>([])
  private let answer: Result<RoutedDelivery?, PairOperationError>

  init(_ answer: Result<RoutedDelivery?, PairOperationError>) { self.answer = answer }

  func send(_ request: PairSendRequest) throws(PairOperationError) -> PairSendOutcome {
    throw .failed("not a session send")
  }

  func cancelTransfer(_ id: UInt64, of device: DeviceAddress, home: String) throws(PairOperationError) {}

  func route(_ request: PairRouteRequest) throws(PairOperationError) -> RoutedDelivery? {
    requests.withLock { $0.append(request) }
    return try answer.get()
  }

  var routed: [PairRouteRequest] { requests.withLock { $0 } }
}

private let payload = #"{"aps":{"alert":"hi","notification_id":"promo-7"}}"#

private func push(home: String = "/w", _ json: String = payload, role: PairSnapshot.Role = .phone)
  -> DashboardEffect
{
  .route(RouteSend(home: home, pair: "desk", role: role, delivery: .push(json)))
}

private func run(_ effect: DashboardEffect, _ pairs: any PairOperations) -> EffectResult {
  EffectJob(effect: effect, model: ModelState()).run(with: MailboxOperations(), pairs: pairs)
}

@Suite struct RouteSendTests {
  @Test func aPushGoesToTheDeviceAndTheRouteTakenIsTheDetail() throws {
    let pairs = FakeRouteOperations(
      .success(RoutedDelivery(description: #"catcher 0 "promo-.*" (app.routes:4)"#, json: "{}")))
    let result = run(push(), pairs)
    #expect(result.failure == nil)
    #expect(result.detail == #"route catcher 0 "promo-.*" (app.routes:4)"#)
    let request = try #require(pairs.routed.first)
    let desk = try PairName("desk")
    #expect(request.home == "/w" && request.device == DeviceAddress(pair: desk, role: .phone))
    #expect(request.delivery == .push(try PushNotification(json: payload)))

    let link = run(
      .route(RouteSend(home: "/w", pair: "desk", role: .watch, delivery: .deepLink("myapp://x"))), pairs)
    #expect(link.failure == nil)
    #expect(pairs.routed.last?.delivery == .deepLink(try DeepLink("myapp://x")))
    #expect(pairs.routed.last?.device?.role == .watch)
  }

  @Test func aDeviceNotRunningARefusalAndAFailedActionAreFailures() {
    let stopped = run(push(), FakeRouteOperations(.success(nil)))
    #expect(stopped.failure?.hasPrefix("desk:phone is not running") == true, "\(stopped)")
    let refused = run(push(), FakeRouteOperations(.failure(.failed("the device takes no pushes"))))
    #expect(refused.failure == "the device takes no pushes")
    let failedPass = run(
      push(),
      FakeRouteOperations(
        .success(RoutedDelivery(description: "catcher 1 \"note-.*\"", json: "{}", failure: "not reachable"))))
    #expect(failedPass.failure == #"route catcher 1 "note-.*", but its action failed: not reachable"#)
  }

  /// The runtime checks again what it sends, whatever made the effect: nothing reaches the device.
  @Test func aPayloadOrURLThatIsNotOneIsRefusedBeforeItIsSent() {
    let pairs = FakeRouteOperations(.success(nil))
    #expect(run(push(#"{"a":1}"#), pairs).failure?.contains(#"no "aps" dictionary"#) == true)
    let long = run(push(#"{"aps":{"a":""# + String(repeating: "x", count: 4100) + #""}}"#), pairs)
    #expect(long.failure?.hasPrefix("the payload is 4116 bytes") == true, "\(long.failure ?? "")")
    let link = run(
      .route(RouteSend(home: "/w", pair: "desk", role: .phone, delivery: .deepLink("no scheme"))), pairs)
    #expect(link.failure != nil)
    let badPair = run(.route(RouteSend(home: "/w", pair: "", role: .phone, delivery: .push(payload))), pairs)
    #expect(badPair.failure?.contains("cannot name a pair") == true, "\(badPair)")
    #expect(pairs.routed.isEmpty)
  }

  @Test func operationsThatDoNotRouteSaySo() {
    let result = run(push(), FakePairOperations())
    #expect(result.failure == "these pair operations do not send pushes or deep links")
  }

  @Test func theExecutorRunsItOffTheLoopAndReportsIt() {
    let pairs = FakeRouteOperations(.success(RoutedDelivery(description: "unhandled", json: "{}")))
    let executor = MailboxEffectExecutor(pairs: pairs, isReadOnly: false)
    let reported = Mutex<[DashboardMessage]>([])
    executor.execute(EffectJob(effect: push(), model: ModelState())) { message in
      reported.withLock { $0.append(message) }
    }
    executor.waitUntilIdle()
    guard case .effectFinished(let result)? = reported.withLock({ $0.first }) else {
      Issue.record("nothing was reported")
      return
    }
    #expect(result.detail == "route unhandled")
    #expect(pairs.routed.count == 1)
  }
}

/// The model reads a route back from its record in the device's own words.
@Suite struct TrafficRouteWordsTests {
  @Test(arguments: [RouteKind.push, .deepLink])
  func theRecordsRouteReadsAsTheOutcomeSaysIt(kind: RouteKind) {
    let first = CatcherReference(kind: kind, index: 0, pattern: #"a\d+ "q""#, label: "app.routes:1")
    let second = CatcherReference(kind: kind, index: 1, pattern: "(a+)+$", label: "app.routes:2")
    let third = CatcherReference(kind: kind, index: 2, pattern: "b.*")
    let outcomes = [
      RouteOutcome(kind: kind, subject: "a1", taker: .catcher(first)),
      RouteOutcome(kind: kind, subject: "x\u{1B}[2J", taker: .delegate, declinedBy: first),
      RouteOutcome(kind: kind, subject: nil, taker: .unhandled),
      RouteOutcome(
        kind: kind, subject: "aaaa!", taker: .catcher(third),
        cutOff: [RouteOutcome.CutOff(catcher: second, reason: .matchLimit)], notTried: [third, first]),
    ]
    let recordKind: TrafficKind = kind == .push ? .push : .deepLink
    for outcome in outcomes {
      let route = TrafficRoute(json: outcome.json, kind: recordKind)
      #expect(route?.description == outcome.description, "\(outcome.json)")
      #expect(route?.subject == outcome.subject)
    }
    #expect(TrafficRoute(json: "[1]") == nil && TrafficRoute(json: #"{"taken":1}"#) == nil)
  }
}

/// A device running as `device run --routes` does, in this process: its session, its routes
/// and its control socket.
private final class RoutedDevice: Sendable {
  let device: SimulatedDevice
  let routes: DeviceRoutes
  let control: DeviceControlServer

  init(_ store: PairStore, _ address: DeviceAddress) throws {
    device = try SimulatedDevice(store: store, address: address, applicationGroup: "group.test")
    let file = try RoutesFile.parse(
      """
      push       promo-.*         pass promo
      deep-link  myapp://item/.*  print
      """, file: "app.routes")
    routes = DeviceRoutes(routes: file, device: device)
    control = try DeviceControlServer(session: device.session, directory: device.directory, routes: routes)
    try device.session.activate()
  }

  func stop() {
    control.stop()
    device.stop()
  }
}

/// The real pair operations on a real device under a temporary home.
@Suite struct DeviceRouteOperationsTests {
  @Test func aPushAndADeepLinkAreRoutedByTheRunningDeviceAndAStoppedOneIsNotRunning() throws {
    let home = TemporaryDirectory(prefix: "wormhole-routesend")
    defer { home.remove() }
    let store = PairStore(home: home.path)
    let pair = try store.create(PairStore.name("desk"))
    let phone = try RoutedDevice(store, pair.phone)
    let pairs = DevicePairOperations()

    let pushed = run(push(home: home.path), pairs)
    #expect(pushed.failure == nil, "\(pushed)")
    #expect(pushed.detail == #"route catcher 0 "promo-.*" (app.routes:1)"#)
    let opened = run(
      .route(RouteSend(home: home.path, pair: "desk", role: .phone, delivery: .deepLink("myapp://item/42"))),
      pairs)
    #expect(opened.detail == #"route catcher 0 "myapp://item/.*" (app.routes:2)"#, "\(opened)")
    let unhandled = run(
      .route(RouteSend(home: home.path, pair: "desk", role: .phone, delivery: .deepLink("other://x"))), pairs)
    #expect(unhandled.detail == "route unhandled", "\(unhandled)")

    // The device recorded each, with its route and what it carried: what the traffic pane shows.
    let wormhole = try Wormhole(directory: phone.device.mailboxes.directory)
    let records = try wormhole.trafficRecords().filter { $0.kind == .push || $0.kind == .deepLink }
    #expect(records.count == 3)
    let first = try #require(records.first)
    #expect(first.payload == payload && first.device == "desk/phone")
    let route = try #require(first.route.flatMap { TrafficRoute(json: $0) })
    #expect(route.description == #"catcher 0 "promo-.*" (app.routes:1)"#)
    #expect(route.subject == "promo-7")

    // The watch is not running: nothing is sent.
    let watch = run(push(home: home.path, role: .watch), pairs)
    #expect(watch.failure?.hasPrefix("desk:watch is not running") == true, "\(watch)")
    phone.stop()
    let stopped = run(push(home: home.path), pairs)
    #expect(stopped.failure?.hasPrefix("desk:phone is not running") == true, "\(stopped)")
  }
}
