import DevicePairing
import DeviceSession
import Dispatch
import Foundation
import Glibc
import MQTTClient
import Synchronization

/// What the pairs of a `child-broker-pairs` child do once told `go`.
enum BrokerPairsTraffic: Equatable {
  /// Every pair does this many round trips at once, as fast as they come back.
  case rounds(Int)
  /// Every pair does this many round trips a second, each due at its time, until `stop`.
  case paced(perSecond: Double)

  /// `ROUNDS` (a count) or `paced:RATE` (round trips a second per pair).
  init?(_ word: String) {
    if word.hasPrefix("paced:") {
      guard let rate = Double(word.dropFirst("paced:".count)), rate > 0, rate <= 1_000 else { return nil }
      self = .paced(perSecond: rate)
    } else {
      guard let count = Int(word), count > 0 else { return nil }
      self = .rounds(count)
    }
  }

  /// The word ``init(_:)`` reads back.
  var argument: String {
    switch self {
    case .rounds(let count): String(count)
    case .paced(let rate): "paced:\(rate)"
    }
  }
}

/// The bytes of each session message (and of its reply) the pairs send.
let brokerPairsMessageBytes = 1024

/// `wormhole-bench child-broker-pairs HOST PORT HOME FIRST COUNT ROUNDS|paced:RATE`: hosts pairs
/// `p FIRST` to `p FIRST+COUNT-1` (both devices each, in HOME's pair store, which several
/// children may share) over the broker, says `ready` once every pair reaches itself, waits for
/// `go`, then has every phone send session messages of ``brokerPairsMessageBytes`` that its
/// watch answers (``BrokerPairsTraffic``: ROUNDS of them at once, or RATE a second each until a
/// `stop` line or the end of its input), and prints `samples S...` (each round trip's seconds)
/// and `rss BYTES`.
func runBrokerPairsChild(_ arguments: [String]) throws {
  guard arguments.count == 6, let port = Int(arguments[1]), let first = Int(arguments[3]),
    let count = Int(arguments[4]), let traffic = BrokerPairsTraffic(arguments[5])
  else { throw BenchmarkFailure("child-broker-pairs HOST PORT HOME FIRST COUNT ROUNDS|paced:RATE") }
  try MQTTClient.load()
  let broker = BrokerAddress(host: arguments[0], port: port)
  let store = PairStore(home: arguments[2])
  var devices: [SimulatedDevice] = []
  defer { for device in devices { device.stop() } }
  let reachable = DispatchSemaphore(value: 0)
  var phones: [SessionEngine] = []
  for index in first..<(first + count) {
    let pair = try store.create(try PairStore.name("p\(index)"))
    for address in [pair.watch, pair.phone] {
      let link = try MQTTDeviceLink(address: address, broker: broker)
      let device = try SimulatedDevice(
        store: store, address: address, applicationGroup: "group.bench", link: link)
      let session = device.session
      device.session.setDeliveryHandler { delivery in
        switch delivery {
        case .message(let message) where address.role == .watch:
          try? session.reply(to: message, with: message.payload)
        case .reachabilityChanged(true) where address.role == .phone:
          reachable.signal()
        default:
          break
        }
      }
      try device.session.activate()
      devices.append(device)
      if address.role == .phone { phones.append(session) }
    }
  }
  for _ in 0..<count {
    guard reachable.wait(timeout: .now() + 60) == .success else {
      throw BenchmarkFailure("not every pair reached itself in 60 s")
    }
  }
  print("ready")
  fflush(nil)
  guard readLine() == "go" else { return }
  let samples = Mutex<[Double]>([])
  let stop = Atomic<Bool>(false)
  let group = DispatchGroup()
  let payload = [UInt8](repeating: 7, count: brokerPairsMessageBytes)
  let phoneCount = phones.count
  for (index, phone) in phones.enumerated() {
    group.enter()
    let thread = Thread {
      defer { group.leave() }
      let replied = DispatchSemaphore(value: 0)
      let start = now()
      var round = 0
      while !stop.load(ordering: .relaxed) {
        switch traffic {
        case .rounds(let rounds):
          guard round < rounds else { return }
        case .paced(let rate):
          // The pairs' first sends are spread over one period, not all at once.
          let due = start + (Double(round) + Double(index) / Double(phoneCount)) / rate
          let wait = due - now()
          if wait > 0 { usleep(UInt32(wait * 1e6)) }
        }
        round += 1
        let sent = now()
        guard
          (try? phone.sendMessage(payload, identifier: "bench", replyTimeout: 30) { _ in replied.signal() })
            != nil, replied.wait(timeout: .now() + 30) == .success
        else { return }
        let took = now() - sent
        samples.withLock { $0.append(took) }
      }
    }
    thread.start()
  }
  if case .paced = traffic {
    while let line = readLine(), line != "stop" {}
    stop.store(true, ordering: .relaxed)
  }
  group.wait()
  print("samples " + samples.withLock { $0 }.map { String($0) }.joined(separator: " "))
  print("rss \(Int(residentBytes()))")
  fflush(nil)
}
