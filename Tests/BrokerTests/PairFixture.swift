import DeviceSession
import TestSupport
import Testing

/// What a test of one pair over a broker starts from: a broker of its own, one home or more
/// (two: the pair's two machines, as far as either device can tell), the pair `pair` made in
/// each, and the devices ``device(_:in:activate:heartbeat:)`` starts and the subscribers
/// ``subscriber(_:extra:)`` makes. ``remove()`` ends all of it: the subscribers, the devices
/// (the last started first), the homes, the broker.
struct PairFixture {
  let broker: TestBroker
  let homes: [BrokerHome]
  /// The pair, as the first home made it (the same name and roles in every home).
  let pair: Pair
  private let started = Collector<BrokerDevice>()
  private let subscribers = Collector<Subscriber>()

  /// The first home: the only one, unless the fixture was made with more.
  var home: BrokerHome { homes[0] }

  /// A broker (`persistent`: see ``TestBroker/init(persistent:)``) and `homes` homes, each
  /// holding the pair `pair`.
  init(homes count: Int = 1, persistent: Bool = false) throws {
    broker = try TestBroker(persistent: persistent)
    homes = (0..<max(count, 1)).map { _ in BrokerHome() }
    do {
      pair = try homes[0].makePair()
      for other in homes.dropFirst() { _ = try other.makePair() }
    } catch {
      homes.forEach { $0.remove() }
      broker.stop()
      throw error
    }
  }

  /// Starts the device at `address` (``pair``'s watch or phone) in `home` (the first one by
  /// default), linked to the broker; ``remove()`` stops it, if the test has not.
  func device(
    _ address: DeviceAddress, in home: BrokerHome? = nil, activate: Bool = true, heartbeat: Duration? = nil
  ) throws -> BrokerDevice {
    let device = try BrokerDevice(
      home ?? self.home, address, broker: broker, activate: activate, heartbeat: heartbeat)
    started.append(device)
    return device
  }

  /// The watch, then the phone, started in the first home (with `heartbeat`: see
  /// ``BrokerDevice/init(_:_:broker:activate:heartbeat:)``); the test goes on once each has
  /// heard the other (a requirement: what follows needs both).
  func reachableDevices(heartbeat: Duration? = nil, sourceLocation: SourceLocation = #_sourceLocation)
    throws -> (watch: BrokerDevice, phone: BrokerDevice)
  {
    let watch = try device(pair.watch, heartbeat: heartbeat)
    let phone = try device(pair.phone, heartbeat: heartbeat)
    try #require(watch.waitReachable() && phone.waitReachable(), sourceLocation: sourceLocation)
    return (watch, phone)
  }

  /// A ``Subscriber`` (`mosquitto_sub`) on `filter` of the broker, subscribed once this
  /// returns; ``remove()`` stops it.
  func subscriber(_ filter: String, extra: [String] = []) throws -> Subscriber {
    let subscriber = try Subscriber(broker, filter: filter, extra: extra)
    subscribers.append(subscriber)
    return subscriber
  }

  /// Stops the subscribers and every device started here (a second stop of one the test
  /// stopped does nothing), removes the homes and stops the broker.
  func remove() {
    subscribers.values.forEach { $0.stop() }
    started.values.reversed().forEach { $0.stop() }
    homes.forEach { $0.remove() }
    broker.stop()
  }
}
