import DeviceRouting
import DeviceSession
import Glibc
import Testing
import Wormhole
import WormholeVocabulary

@testable import DevicePairing

/// ``DeviceRoutes`` on a real device in this process, directly and through its control socket
/// (``PairedDeviceClient/push(_:)`` and ``PairedDeviceClient/open(_:)``): the route taken, the
/// action done, and the traffic record of each delivery.
@Suite struct DeviceRoutesTests {
  static let routesText = """
    deep-link  myapp://item/\\d+     pass item
    deep-link  myapp://admin/.*     decline
    deep-link  "myapp://slow/(a+)+$"  print
    push       promo-.*             pass promo
    push       note-.*              pass note session-message
    delegate                        print
    """

  /// A device running with the routes above and its control socket; the `print`s collected.
  final class RoutedDevice: Sendable {
    let device: DeviceUnderTest
    let routes: DeviceRoutes
    let control: DeviceControlServer
    let printed = Collector<DeviceRoutes.Printed>()

    init(_ store: PairStore, _ address: DeviceAddress, routes text: String? = DeviceRoutesTests.routesText)
      throws
    {
      device = try DeviceUnderTest(store, address, activate: false)
      let file = try text.map { try RoutesFile.parse($0, file: "app.routes") }
      let printed = printed
      routes = DeviceRoutes(routes: file, device: device.device) { printed.append($0) }
      control = try DeviceControlServer(
        session: device.session, directory: device.device.directory, routes: routes)
      try device.session.activate()
    }

    /// The group container's wormhole, to read mailboxes and the journal.
    func wormhole() throws -> Wormhole { try Wormhole(directory: device.device.mailboxes.directory) }

    func stop() {
      control.stop()
      device.stop()
    }
  }

  func push(_ identifier: String) throws -> PushNotification {
    try PushNotification(json: #"{"aps":{"alert":"hi","notification_id":"\#(identifier)"}}"#)
  }

  @Test func aPushCaughtByAPassRouteIsInItsMailboxAndRecordedWithItsRoute() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try RoutedDevice(home.store, pair.phone)
    defer { phone.stop() }
    let notification = try push("PROMO-7")

    let result = phone.routes.deliver(notification)
    guard case .catcher(let catcher) = result.outcome.taker else {
      Issue.record("taken by \(result.outcome.taker)")
      return
    }
    #expect(catcher.index == 0 && catcher.label == "app.routes:4" && catcher.kind == .push)
    #expect(result.action == .pass(identifier: "promo", transiting: nil) && result.failure == nil)
    let wormhole = try phone.wormhole()
    let message = try wormhole.message(withIdentifier: "promo")
    guard case .dictionary(let entries)? = message else {
      Issue.record("the mailbox holds \(String(describing: message))")
      return
    }
    #expect(entries.contains { $0.key == .string("aps") })
    let records = try wormhole.trafficRecords()
    let pass = try #require(records.first { $0.kind == .pass && $0.identifier == "promo" })
    let record = try #require(records.last)
    #expect(record.kind == .push && record.identifier == "promo" && record.bytes == notification.bytes.count)
    #expect(record.device == "pair/phone" && record.outcome == .ok)
    #expect(record.transfer != nil && record.transfer == pass.transfer && record.transfer == result.transfer)
    #expect(record.route == result.outcome.json)
    #expect(record.payload == String(decoding: notification.bytes, as: UTF8.self))
    #expect(result.record == record)
  }

  @Test func throughTheControlSocketADeclinedLinkGoesToTheDelegateAndTheRestAnswer() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try RoutedDevice(home.store, pair.phone)
    defer { phone.stop() }
    let client = PairedDeviceClient(store: home.store, address: pair.phone, applicationGroup: "group.test")

    let declined = try #require(try client.open(DeepLink("myapp://admin/users")))
    #expect(declined.description == #"delegate, declined by catcher 1 "myapp://admin/.*" (app.routes:2)"#)
    #expect(declined.json.contains(#""taken":"delegate""#) && declined.json.contains(#""declined_by""#))
    #expect(declined.failure == nil)
    #expect(phone.printed.values.map(\.delivery) == [.deepLink(try DeepLink("myapp://admin/users"))])

    let item = try #require(try client.open(DeepLink("myapp://item/42")))
    // The pattern is quoted as DisplayText quotes: its backslash doubled.
    #expect(item.description == #"catcher 0 "myapp://item/\\d+" (app.routes:1)"#)
    #expect(try phone.wormhole().message(withIdentifier: "item") == .string("myapp://item/42"))

    // A catastrophic pattern is cut off, reported, and the device keeps answering.
    let slow = try DeepLink("myapp://slow/" + String(repeating: "a", count: 5000) + "!")
    let cut = try #require(try client.open(slow))
    #expect(cut.description.hasPrefix("delegate; cut off: catcher 2"), "\(cut.description)")
    #expect(cut.description.hasSuffix("(PCRE2 match limit)"), "\(cut.description)")
    #expect(cut.json.contains(#""cut_off":[{"#))
    #expect(try client.push(push("promo-1"))?.description.hasPrefix("catcher 0") == true)

    // A session pass that cannot be done: the route is still the answer, with the failure.
    let note = try #require(try client.push(push("note-1")))
    #expect(note.description.hasPrefix("catcher 1") && note.failure != nil, "\(note)")
    let records = try phone.wormhole().trafficRecords().filter { $0.kind == .push || $0.kind == .deepLink }
    #expect(records.map(\.kind) == [.deepLink, .deepLink, .deepLink, .push, .push])
    #expect(records.last?.outcome == .failed && records.last?.transiting == "session-message")
    #expect(records[2].route == cut.json)
    #expect(records.map(\.identifier) == ["", "item", "", "promo", "note"])
  }

  @Test func withoutRoutesEveryDeliveryIsUnhandledAndStillRecorded() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let phone = try RoutedDevice(home.store, pair.phone, routes: nil)
    defer { phone.stop() }
    let client = PairedDeviceClient(store: home.store, address: pair.phone, applicationGroup: "group.test")
    #expect(try client.push(push("x"))?.description == "unhandled")
    let bare = try PushNotification(json: #"{"aps":{}}"#)
    #expect(try client.push(bare)?.description == "unhandled, no notification identifier")
    let records = try phone.wormhole().trafficRecords()
    #expect(records.map(\.kind) == [.push, .push])
    #expect(records.first?.route == #"{"taken":"unhandled","subject":"x"}"#)
    #expect(records.allSatisfy { $0.identifier.isEmpty && $0.transfer == nil })
  }

  @Test func aDeviceThatIsNotRunningTakesNothing() throws {
    let home = TemporaryHome()
    defer { home.remove() }
    let pair = try makePair(home)
    let client = PairedDeviceClient(store: home.store, address: pair.watch, applicationGroup: "group.test")
    #expect(try client.push(push("promo-1")) == nil)
    #expect(try client.open(DeepLink("myapp://item/1")) == nil)
    // A server without routes refuses them: the device's refusal, not a frame of the counterpart's.
    let watch = try DeviceUnderTest(home.store, pair.watch, activate: false)
    let control = try DeviceControlServer(session: watch.session, directory: watch.device.directory)
    try watch.session.activate()
    defer {
      control.stop()
      watch.stop()
    }
    #expect(
      throws: PairedDeviceError.routeRefused(pair.watch, reason: "this device takes no pushes or deep links")
    ) {
      try client.push(push("promo-1"))
    }
    #expect(
      PairedDeviceError.routeRefused(pair.watch, reason: "this device takes no pushes or deep links")
        .description
        == "the watch of pair refused it: this device takes no pushes or deep links")
    let missing = PairedDeviceClient(
      store: home.store, address: DeviceAddress(pair: try PairStore.name("nope"), role: .phone),
      applicationGroup: "g")
    #expect(throws: PairedDeviceError.self) { try missing.push(push("a")) }
  }

  @Test func aRoutedDeliveryReadsBackFromItsFrame() throws {
    for routed in [
      RoutedDelivery(description: "unhandled", json: #"{"taken":"unhandled"}"#),
      RoutedDelivery(description: "catcher 0 \"x\"", json: "{}", failure: "7007"),
      RoutedDelivery(description: "", json: "", failure: ""),
    ] {
      #expect(try RoutedDelivery(routed.frame(sender: .watch)) == routed)
    }
    // A session operation's answer is not a routed delivery.
    #expect(throws: FrameError.self) { try RoutedDelivery(ControlAnswer.cancelled.frame(sender: .phone)) }
  }
}
