import DevicePairing
import DeviceSession
import Foundation
import MQTTClient
import TestSupport

/// A fresh home for pairs: the shared hermetic directory, with the pair store under it.
struct BrokerHome {
  let directory = TemporaryDirectory(prefix: "broker-home")
  var path: String { directory.path }
  var store: PairStore { PairStore(home: path) }
  func remove() { directory.remove() }

  /// Creates the pair `name` under this home.
  func makePair(_ name: String = "pair") throws -> Pair { try store.create(try PairStore.name(name)) }
}

/// A simulated device in this process whose link is an ``MQTTDeviceLink`` to `broker`, with
/// its deliveries collected.
final class BrokerDevice: Sendable, CollectsSessionDeliveries {
  let device: SimulatedDevice
  /// The device's link, for what only it does (routing pushes from the broker).
  let link: MQTTDeviceLink
  let deliveries = Collector<SessionDelivery>()

  /// - Parameter heartbeat: The link's heartbeat; by default 5 s (three missed: 15 s), not the
  ///   link's default of a quarter of the keep-alive, because a test machine running the whole
  ///   suite (and other builds) can stall a process for seconds, and a counterpart heard stale
  ///   then would fail tests about other things. The heartbeat tests set their own.
  init(
    _ home: BrokerHome, _ address: DeviceAddress, broker: TestBroker, activate: Bool = true,
    heartbeat: Duration? = nil
  ) throws {
    link = try MQTTDeviceLink(
      address: address, broker: broker.address, keepAlive: 5, heartbeat: heartbeat ?? .seconds(5))
    device = try SimulatedDevice(
      store: home.store, address: address, applicationGroup: "group.test", link: link)
    let deliveries = deliveries
    device.session.setDeliveryHandler { deliveries.append($0) }
    if activate { try device.session.activate() }
  }

  var session: SessionEngine { device.session }

  func stop() { device.stop() }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// The built `wormhole-tui`, next to the test bundle.
let wormholePath: String = {
  let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  return me.deletingLastPathComponent().appendingPathComponent("wormhole-tui").path
}()
