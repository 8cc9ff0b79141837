import DevicePairing
import DeviceSession
import Dispatch
import Foundation
import Glibc
import KeyedArchive
import MQTTClient
import Synchronization

/// Issue 15's broker targets, through a mosquitto of the benchmark's own (127.0.0.1, a free
/// port, a configuration in a scratch directory). Baselines, measured in the same run against
/// the same broker:
///
/// - a session message and its reply (1 KiB each way) between two devices over
///   ``MQTTDeviceLink`` against a raw libmosquitto round trip of the same bytes: one client
///   publishes, a second (subscribed) publishes them back, at the link's qualities (published at
///   QoS 1, subscribed at QoS 0). Target: within 1.5x (ratio 0.667).
/// - bridge throughput: mailbox changes per second that `wormhole-tui bridge` (a child) mirrors
///   to the broker, from the first change (a rename of an archive written beforehand) to the
///   subscriber's last mailbox, against raw publishes of the same payloads (the ones the bridge
///   published) to the same subscriber by one client, with Nagle's algorithm off and on
///   (`MQTTClient(disablesNagle:)`), each once per run. The baseline is the faster of the two
///   by its median over the runs (five: the raw side swings between about 16k and 37k publishes
///   a second run by run); the faster of the two in each run, the earlier baseline, is biased
///   upward by that noise and stays in the detail (`baseline_faster_of_each_run`). Target: 0.5x. The detail has each
///   side's CPU per change (``threadsCPUSeconds(_:)``: the bridge child's; for the raw
///   publishes the bench process's, its subscriber included, and without the subscriber's
///   network thread: the raw publisher's own; and the bench's during the bridge's changes: the
///   renames and the subscriber).
///
/// The broker runs with `set_tcp_nodelay true`: with mosquitto's default (Nagle's algorithm on
/// its sockets) every round trip waits for a delayed acknowledgement, about 44 ms on Linux,
/// for the raw baseline and the devices alike (measured: 44 ms against 84 µs). It queues any
/// number of messages for a subscriber (`max_queued_messages 0`): with mosquitto's default of
/// 1000 past its 20 in flight, a subscriber slower than 2000 publishes in a burst loses some
/// (the broker still retains them, but the figure would never see them arrive).
///
/// - 100 pairs through the one broker, hosted by 4 child processes (`wormhole-bench
///   child-broker-pairs`, 25 pairs each, both devices of a pair in one child), every pair doing
///   its round trips at once: their p50 against one pair's alone (no target; the memory of the
///   hosting processes is stated).
///
/// Each figure is the median of three runs (the bridge's, of ``bridgeRuns``); each run's ratio
/// is in the detail.
///
/// `WORMHOLE_BENCH_BROKER=session|pairs|bridge` (comma-separated for several) takes only those
/// figures. The keystroke figures with a dashboard watching the broker are the `fleet` group.
func brokerBenchmarks() throws -> [BenchmarkRecord] {
  let selected = try BrokerFigure.selected()
  try MQTTClient.load()
  let broker = try BenchBroker()
  defer { broker.stop() }
  var records: [BenchmarkRecord] = []
  for figure in BrokerFigure.allCases where selected.contains(figure) {
    switch figure {
    case .session: records.append(try sessionMessageBenchmark(broker))
    case .bridge: records.append(try bridgeThroughputBenchmark(broker))
    case .pairs: records.append(try manyPairsBenchmark(broker))
    }
  }
  return records
}

/// The figures of the broker group, in the order they run.
enum BrokerFigure: String, BenchFigure {
  case session, bridge, pairs
  static let environmentSwitch = "WORMHOLE_BENCH_BROKER"
}

private let runs = 3
/// The bridge figure's runs: more than the others', its raw side being the noisiest.
private let bridgeRuns = 5
private let roundTrips = 300
private let warmUps = 30
private let messageBytes = 1024
private let bridgedMailboxes = 2000

// MARK: Session messages

private func sessionMessageBenchmark(_ broker: BenchBroker) throws -> BenchmarkRecord {
  let home = try scratchDirectory()
  defer { try? FileManager.default.removeItem(atPath: home) }
  let store = PairStore(home: home)
  let payload = [UInt8](repeating: 7, count: messageBytes)
  let taken = try (0..<runs).map { run in
    let pair = try store.create(try PairStore.name("bench\(run)"))
    let ours = try deviceRoundTrips(store: store, pair: pair, broker: broker, payload: payload)
    let raw = try rawRoundTrips(broker: broker, payload: payload, run: run)
    return FigureRun(ours: ours, baseline: raw, detail: ["p50_s": ours, "raw_p50_s": raw])
  }
  return BenchmarkRecord(
    "broker_session_message_p50", unit: "seconds",
    baselineName: "raw libmosquitto publish-to-subscriber round trip", higherIsBetter: false, target: 1 / 1.5,
    runs: taken, detail: ["round_trips": Double(roundTrips), "payload_bytes": Double(messageBytes)])
}

/// The p50 of `roundTrips` session messages with replies, phone to watch, after a warm-up.
private func deviceRoundTrips(store: PairStore, pair: Pair, broker: BenchBroker, payload: [UInt8]) throws
  -> Double
{
  let reachable = DispatchSemaphore(value: 0)
  func device(_ address: DeviceAddress) throws -> SimulatedDevice {
    let link = try MQTTDeviceLink(address: address, broker: broker.address)
    return try SimulatedDevice(store: store, address: address, applicationGroup: "group.bench", link: link)
  }
  let watch = try device(pair.watch)
  defer { watch.stop() }
  let phone = try device(pair.phone)
  defer { phone.stop() }
  let watchSession = watch.session
  watch.session.setDeliveryHandler { delivery in
    if case .message(let message) = delivery { try? watchSession.reply(to: message, with: message.payload) }
  }
  phone.session.setDeliveryHandler { delivery in
    if delivery == .reachabilityChanged(true) { reachable.signal() }
  }
  try watch.session.activate()
  try phone.session.activate()
  guard reachable.wait(timeout: .now() + 20) == .success else {
    throw BenchmarkFailure("the two devices did not reach each other through the broker")
  }
  let replied = DispatchSemaphore(value: 0)
  var samples: [Double] = []
  for index in 0..<(warmUps + roundTrips) {
    let start = now()
    try phone.session.sendMessage(payload, identifier: "bench", replyTimeout: 10) { _ in replied.signal() }
    guard replied.wait(timeout: .now() + 10) == .success else { throw BenchmarkFailure("no reply in 10 s") }
    if index >= warmUps { samples.append(now() - start) }
  }
  return median(samples)
}

/// The p50 of `roundTrips` raw round trips: publish at QoS 1, an echoing client subscribed at
/// QoS 0 publishes the bytes back at QoS 1, the first client (subscribed at QoS 0) receives them.
private func rawRoundTrips(broker: BenchBroker, payload: [UInt8], run: Int) throws -> Double {
  let there = "bench/raw\(run)/there"
  let back = "bench/raw\(run)/back"
  let echo = Mutex<MQTTClient?>(nil)
  let echoClient = try MQTTClient(clientIdentifier: "bench-echo-\(run)", cleanSession: true) { event in
    guard case .received(let message) = event, let client = echo.withLock({ $0 }) else { return }
    _ = try? client.publish(message.payload, to: back, quality: .atLeastOnce, retained: false)
  }
  echo.withLock { $0 = echoClient }
  defer {
    echo.withLock { $0 = nil }
    echoClient.disconnect()
  }
  let arrived = DispatchSemaphore(value: 0)
  let sender = try MQTTClient(clientIdentifier: "bench-sender-\(run)", cleanSession: true) { event in
    if case .received = event { arrived.signal() }
  }
  defer { sender.disconnect() }
  try echoClient.connect(to: broker.address)
  try sender.connect(to: broker.address)
  try echoClient.subscribe(there, quality: .atMostOnce)
  try sender.subscribe(back, quality: .atMostOnce)
  // Both subscriptions are in place once a probe comes back.
  var settled = false
  for _ in 0..<50 where !settled {
    _ = try? sender.publish(payload, to: there, quality: .atLeastOnce, retained: false)
    settled = arrived.wait(timeout: .now() + 0.2) == .success
  }
  guard settled else { throw BenchmarkFailure("the raw round trip never came back") }
  while arrived.wait(timeout: .now() + 0.3) == .success {}  // late probes
  var samples: [Double] = []
  for index in 0..<(warmUps + roundTrips) {
    let start = now()
    try sender.publish(payload, to: there, quality: .atLeastOnce, retained: false)
    guard arrived.wait(timeout: .now() + 10) == .success else {
      throw BenchmarkFailure("a raw round trip took more than 10 s")
    }
    if index >= warmUps { samples.append(now() - start) }
  }
  return median(samples)
}

// MARK: Many pairs

private let manyPairs = 100
private let pairProcesses = 4
private let manyPairsRoundTrips = 20

private func manyPairsBenchmark(_ broker: BenchBroker) throws -> BenchmarkRecord {
  let home = try scratchDirectory()
  defer { try? FileManager.default.removeItem(atPath: home) }
  let payload = [UInt8](repeating: 7, count: messageBytes)
  let taken = try (0..<runs).map { run in
    let store = PairStore(home: home)
    let pair = try store.create(try PairStore.name("alone\(run)"))
    let single = try deviceRoundTrips(store: store, pair: pair, broker: broker, payload: payload)
    let perProcess = manyPairs / pairProcesses
    let children = try (0..<pairProcesses).map { index in
      let childHome = home + "/many\(run)-\(index)"
      try FileManager.default.createDirectory(atPath: childHome, withIntermediateDirectories: true)
      return try PairChild(
        [
          broker.address.host, String(broker.address.port), childHome,
          String(run * 1000 + index * perProcess), String(perProcess),
          BrokerPairsTraffic.rounds(manyPairsRoundTrips).argument,
        ], command: "child-broker-pairs")
    }
    defer { for child in children { child.finish(killing: true) } }
    for child in children { try child.expect("ready") }
    for child in children { child.send("go") }
    var samples: [Double] = []
    var resident: [Double] = []
    for child in children {
      let words = try child.line().split(separator: " ")
      guard words.first == "samples" else {
        throw BenchmarkFailure("a pairs child said \(words.first ?? "")")
      }
      samples += words.dropFirst().compactMap { Double($0) }
      let memory = try child.line().split(separator: " ")
      guard memory.first == "rss", memory.count == 2, let bytes = Double(memory[1]) else {
        throw BenchmarkFailure("a pairs child did not state its memory")
      }
      resident.append(bytes)
    }
    guard samples.count == manyPairs * manyPairsRoundTrips else {
      throw BenchmarkFailure("\(samples.count) round trips of \(manyPairs * manyPairsRoundTrips)")
    }
    return FigureRun(
      ours: median(samples), baseline: single,
      detail: ["p99_s": percentile(samples, 0.99), "rss_per_process_bytes": median(resident)])
  }
  return BenchmarkRecord(
    "broker_100_pairs_message_p50", unit: "seconds", baselineName: "one pair alone", higherIsBetter: false,
    target: nil, runs: taken,
    detail: [
      "pairs": Double(manyPairs), "processes": Double(pairProcesses),
      "round_trips_per_pair": Double(manyPairsRoundTrips),
    ])
}

// MARK: Bridge throughput

private func bridgeThroughputBenchmark(_ broker: BenchBroker) throws -> BenchmarkRecord {
  let contents = try (0..<bridgedMailboxes).map {
    try KeyedArchiveEncoder().encodeBytes(.string("mailbox change \($0)"))
  }
  let program = try siblingProgram("wormhole-tui")
  var ours: [Double] = []
  var raw: [Double] = []
  var rawByConfiguration: [String: [Double]] = [:]
  var detail: [String: Double] = [:]
  for run in 0..<bridgeRuns {
    let scratch = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let root = scratch + "/root"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let machine = "bench\(run)"
    let prefix = "wormhole/v1/machines/\(machine)"
    let seen = BridgeSubscriber()
    let subscriber = try MQTTClient(clientIdentifier: "bench-bridge-sub-\(run)", cleanSession: true) {
      if case .received(let message) = $0 { seen.add(message) }
    }
    defer { subscriber.disconnect() }
    try subscriber.connect(to: broker.address)
    try subscriber.subscribe("\(prefix)/#", quality: .atLeastOnce)
    try subscriber.subscribe("bench/rawbridge\(run)/#", quality: .atLeastOnce)

    let bridge = Process()
    bridge.executableURL = URL(fileURLWithPath: program)
    bridge.arguments = ["bridge", "--broker", broker.address.description, root, "--name", machine]
    bridge.standardOutput = FileHandle.nullDevice
    bridge.standardError = FileHandle.nullDevice
    try bridge.run()
    defer {
      kill(bridge.processIdentifier, SIGKILL)
      bridge.waitUntilExit()
    }
    guard seen.wait(seconds: 20, until: { $0.presenceOnline(prefix) }) else {
      throw BenchmarkFailure("the bridge did not come online")
    }
    let mailboxPrefix = "\(prefix)/mailboxes/"
    seen.track(mailboxPrefix)
    // Written beforehand beside the root (not below it, where the bridge would publish them
    // as mailboxes of their own and count them), on the same file system: each change is one
    // rename, so that the writer outruns the bridge and the figure is the bridge's.
    let stage = scratch + "/stage"
    try FileManager.default.createDirectory(atPath: stage, withIntermediateDirectories: true)
    for (index, bytes) in contents.enumerated() {
      try rawWriteAndRename(bytes, directory: stage, name: "m\(index).archive")
    }
    let bridgeCPU = threadsCPUSeconds(bridge.processIdentifier)
    let benchCPU = threadsCPUSeconds(getpid())
    let subscriberCPU = seen.threadCPU
    let start = now()
    for index in contents.indices {
      guard rename(stage + "/m\(index).archive", root + "/m\(index).archive") == 0 else {
        throw BenchmarkFailure("rename into \(root): \(errno)")
      }
    }
    let written = now()
    guard seen.wait(seconds: 60, forCount: bridgedMailboxes, under: mailboxPrefix) else {
      throw BenchmarkFailure(
        "the bridge mirrored \(seen.count(mailboxPrefix)) of \(bridgedMailboxes) mailboxes")
    }
    let mirrored = now()
    detail["run\(run)_bridge_cpu_us_per_change"] =
      (threadsCPUSeconds(bridge.processIdentifier) - bridgeCPU) * 1e6 / Double(bridgedMailboxes)
    // This process meanwhile: the renames and the subscriber (its network thread alone beside it).
    detail["run\(run)_bench_cpu_us_per_change"] =
      (threadsCPUSeconds(getpid()) - benchCPU) * 1e6 / Double(bridgedMailboxes)
    detail["run\(run)_subscriber_cpu_us_per_change"] =
      (seen.threadCPU - subscriberCPU) * 1e6 / Double(bridgedMailboxes)
    let oursRate = Double(bridgedMailboxes) / (mirrored - start)
    detail["run\(run)_renames_per_s"] = Double(bridgedMailboxes) / (written - start)
    detail["run\(run)_lag_after_last_change_s"] = mirrored - written
    // The same payloads, published raw by one client to the same subscriber, with Nagle's
    // algorithm off (as the bridge's client) and on (a burst then goes out in fuller segments):
    // the baseline is the faster of the two.
    let payloads = seen.latestPayloads(mailboxPrefix)
    var rawRate = 0.0
    for disablesNagle in [true, false] {
      let name = disablesNagle ? "nodelay" : "nagle"
      let (rate, cpu, subscriberCPU) = try rawPublishes(
        payloads, broker: broker, seen: seen, prefix: "bench/rawbridge\(run)/\(name)/",
        disablesNagle: disablesNagle)
      detail["run\(run)_raw_\(name)_per_s"] = rate
      rawByConfiguration[name, default: []].append(rate)
      // The whole bench process: the raw publisher, its network thread and the subscriber's;
      // and without the subscriber's network thread: the raw publisher's own.
      detail["run\(run)_raw_\(name)_cpu_us_per_publish"] = cpu * 1e6 / Double(payloads.count)
      detail["run\(run)_raw_\(name)_publisher_cpu_us_per_publish"] =
        (cpu - subscriberCPU) * 1e6 / Double(payloads.count)
      rawRate = max(rawRate, rate)
    }
    ours.append(oursRate)
    raw.append(rawRate)
    detail["run\(run)_ratio"] = oursRate / rawRate
    detail["run\(run)_changes_per_s"] = oursRate
    detail["run\(run)_raw_per_s"] = rawRate
    detail["payload_bytes_p50"] = median(payloads.map { Double($0.count) })
  }
  detail["mailboxes"] = Double(bridgedMailboxes)
  detail["baseline_faster_of_each_run"] = median(raw)
  // The faster configuration by its median: the maximum of two noisy rates in each run would
  // take the luckier sample as the baseline.
  let baseline = rawByConfiguration.values.map(median).max() ?? median(raw)
  return BenchmarkRecord(
    name: "broker_bridge_throughput", unit: "changes/s", value: median(ours),
    baselineName: "raw publishes of the same payloads (the faster configuration)", baseline: baseline,
    higherIsBetter: true, target: 0.5, detail: detail)
}

/// Publishes `payloads` (retained, QoS 1) under `prefix` from a client of its own, one
/// `mosquitto_publish` each, and waits until `seen` has them all: the rate, the CPU seconds this
/// process spent meanwhile, and those of the subscriber's network thread among them.
private func rawPublishes(
  _ payloads: [[UInt8]], broker: BenchBroker, seen: BridgeSubscriber, prefix: String, disablesNagle: Bool
) throws -> (rate: Double, cpuSeconds: Double, subscriberCPUSeconds: Double) {
  let publisher = try MQTTClient(
    clientIdentifier: "bench-bridge-raw-\(UInt32.random(in: 0...UInt32.max))", cleanSession: true,
    disablesNagle: disablesNagle
  ) { _ in }
  defer { publisher.disconnect() }
  try publisher.connect(to: broker.address)
  seen.track(prefix)
  let cpu = threadsCPUSeconds(getpid())
  let subscriberCPU = seen.threadCPU
  let start = now()
  for (index, payload) in payloads.enumerated() {
    try publisher.publish(payload, to: prefix + "m\(index)", quality: .atLeastOnce, retained: true)
  }
  guard seen.wait(seconds: 60, forCount: payloads.count, under: prefix) else {
    throw BenchmarkFailure("the raw publishes did not all arrive")
  }
  let rate = Double(payloads.count) / (now() - start)
  return (rate, threadsCPUSeconds(getpid()) - cpu, seen.threadCPU - subscriberCPU)
}

/// The CPU seconds of `pid`'s threads, to the nanosecond (the sum of their
/// `/proc/PID/task/TID/schedstat`; `cpuSeconds`, in clock ticks of 10 ms, is 5 µs a change
/// coarse over 2000 changes); the threads that ended are not counted. `cpuSeconds` when it
/// cannot be read.
private func threadsCPUSeconds(_ pid: pid_t) -> Double {
  guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else {
    return cpuSeconds(pid)
  }
  var nanoseconds = 0.0
  for task in tasks {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8),
      let first = text.split(separator: " ").first, let value = Double(first)
    else { continue }
    nanoseconds += value
  }
  return nanoseconds > 0 ? nanoseconds / 1e9 : cpuSeconds(pid)
}

/// What the bridge benchmark's subscriber received: the newest payload per topic, and how many
/// topics under each prefix it is told to count hold content. Each message costs it O(1)
/// (an earlier version filtered every topic at each message, on the waiting thread, which took
/// most of a core from both sides of the figure); the waiting thread wakes when a count it
/// waits for is reached, not at each message.
private final class BridgeSubscriber: Sendable {
  private let state = Mutex(State())
  private let changed = DispatchSemaphore(value: 0)

  private struct State {
    var latest: [String: [UInt8]] = [:]
    var counts: [String: Int] = [:]
    /// The count waited for: the waiter is woken once it is reached (or at every message, when none).
    var target: (prefix: String, count: Int)?
    /// The CPU time of the thread that handed over the last message (the subscriber's network thread).
    var threadCPU = 0.0
  }

  /// Counts the topics under `prefix` (a topic is counted under the one tracked prefix it starts with).
  func track(_ prefix: String) { state.withLock { $0.counts[prefix] = $0.counts[prefix] ?? 0 } }

  func add(_ message: MQTTMessage) {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    let cpu = Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    let wake = state.withLock { state -> Bool in
      state.threadCPU = cpu
      let before = state.latest.updateValue(message.payload, forKey: message.topic)
      let change = (message.payload.isEmpty ? 0 : 1) - (before.map { $0.isEmpty ? 0 : 1 } ?? 0)
      if change != 0, let prefix = state.counts.keys.first(where: { message.topic.hasPrefix($0) }) {
        state.counts[prefix, default: 0] += change
      }
      guard let target = state.target else { return true }
      return (state.counts[target.prefix] ?? 0) >= target.count
    }
    if wake { changed.signal() }
  }

  func count(_ prefix: String) -> Int { state.withLock { $0.counts[prefix] ?? 0 } }

  /// The subscriber's network thread's CPU seconds, as of the last message.
  var threadCPU: Double { state.withLock { $0.threadCPU } }

  func presenceOnline(_ prefix: String) -> Bool {
    state.withLock { $0.latest["\(prefix)/presence"] == Array("online".utf8) }
  }

  func latestPayloads(_ prefix: String) -> [[UInt8]] {
    state.withLock { state in
      state.latest.filter { $0.key.hasPrefix(prefix) && !$0.value.isEmpty }.sorted { $0.key < $1.key }
        .map(\.value)
    }
  }

  /// Waits until `count` topics under the tracked `prefix` hold content; `false` after `seconds`.
  func wait(seconds: Double, forCount count: Int, under prefix: String) -> Bool {
    state.withLock { $0.target = (prefix, count) }
    defer { state.withLock { $0.target = nil } }
    return wait(seconds: seconds) { $0.count(prefix) >= count }
  }

  /// Waits, woken by each message (or the target reached), until `condition` holds; `false` after `seconds`.
  func wait(seconds: Double, until condition: (BridgeSubscriber) -> Bool) -> Bool {
    let deadline = DispatchTime.now() + seconds
    while true {
      if condition(self) { return true }
      if changed.wait(timeout: deadline) == .timedOut { return condition(self) }
    }
  }
}

/// A mosquitto of the benchmark's own, killed (and its directory removed) by ``stop()``;
/// `extraConfiguration` (mosquitto.conf lines) is added to its configuration.
final class BenchBroker: Sendable {
  let address: BrokerAddress
  private let process: Process
  private let directory: String

  init(extraConfiguration: String = "") throws {
    let candidates: [String] = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"]
    let executable = candidates.first { access($0, X_OK) == 0 }
    guard let executable else { throw BenchmarkFailure("mosquitto is not installed: apt install mosquitto") }
    directory = try scratchDirectory()
    let port = try freePort()
    address = BrokerAddress(host: "127.0.0.1", port: port)
    let configuration = directory + "/mosquitto.conf"
    try Data(
      ("listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nset_tcp_nodelay true\n"
        + "max_queued_messages 0\n" + extraConfiguration).utf8
    )
    .write(to: URL(fileURLWithPath: configuration))
    process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["-c", configuration]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    // Listening once a client connects.
    for _ in 0..<100 {
      if let probe = try? MQTTClient(clientIdentifier: "bench-probe", cleanSession: true, handler: { _ in }),
        (try? probe.connect(to: address)) != nil
      {
        probe.disconnect()
        return
      }
      usleep(50_000)
    }
    stop()
    throw BenchmarkFailure("mosquitto did not start listening on \(port)")
  }

  func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    try? FileManager.default.removeItem(atPath: directory)
  }
}

/// A TCP port on 127.0.0.1 nothing listens on now.
private func freePort() throws -> Int {
  let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard socket >= 0 else { throw BenchmarkFailure("no socket for a free port") }
  defer { close(socket) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let named = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
      bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
    }
  }
  guard named else { throw BenchmarkFailure("cannot find a free port") }
  return Int(UInt16(bigEndian: address.sin_port))
}
