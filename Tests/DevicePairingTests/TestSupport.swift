import DevicePairing
import DeviceSession
import Dispatch
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The shared hermetic directory and collector of values from other threads.
typealias TemporaryDirectory = TestSupport.TemporaryDirectory
typealias Collector<Value: Sendable> = TestSupport.Collector<Value>

/// A fresh home for pairs: the shared hermetic directory, with the pair store under it.
struct TemporaryHome {
  private let directory = TemporaryDirectory(prefix: "device-test")
  var path: String { directory.path }

  func remove() { directory.remove() }

  var store: PairStore { PairStore(home: path) }
}

/// A simulated device in this process with its deliveries collected.
final class DeviceUnderTest: Sendable, CollectsSessionDeliveries {
  let device: SimulatedDevice
  let deliveries = Collector<SessionDelivery>()

  /// Opens the device, sets the handler, and activates it unless told not to.
  init(_ store: PairStore, _ address: DeviceAddress, activate: Bool = true) throws {
    device = try SimulatedDevice(store: store, address: address, applicationGroup: "group.test")
    let deliveries = deliveries
    device.session.setDeliveryHandler { deliveries.append($0) }
    if activate { try device.session.activate() }
  }

  var session: SessionEngine { device.session }

  func stop() { device.stop() }
}

/// A test pair under a fresh home.
func makePair(_ home: TemporaryHome, _ text: String = "pair") throws -> Pair {
  try home.store.create(try PairStore.name(text))
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// The built `device-runner`, next to the test bundle.
let runnerPath: String = {
  let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  return me.deletingLastPathComponent().appendingPathComponent("device-runner").path
}()
