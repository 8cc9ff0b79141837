import DevicePairing
import Foundation
import Glibc
import PeerSession
import Synchronization

/// Issue 14 targets, between two peer processes: the sending peer runs in this process, its
/// connected peer in a child `wormhole-bench child-pair peer …` that echoes reliable data and
/// says where each resource landed. Baselines, measured in the same run:
///
/// - a reliable send (1 KB) and its echo against a raw Unix-socket round trip of the same bytes
///   to a child `wormhole-bench child-pair raw …` that echoes them (target: within 2x, ratio 0.5).
///   A peer round trip ends when the bench's handler has the echo, as a raw one ends when its
///   `read` returns; until the waiting thread woke as well is in `detail` (`woken_p50_us`), and
///   round trips each sent from the handler that had the echo before it, so that one thread on
///   each side takes part as in the raw round trip, are there too (`from_handler_p50_us`);
/// - a 100 MB resource, from `sendResource` to the receiver's finished file, against a raw copy
///   of the same bytes read from the same file, written down a Unix socket to a child
///   `wormhole-bench child-pair copy …` that writes them into a file beside the peer's resources
///   (target: at least half its rate, ratio 0.5). The file system both land on is named in the
///   baseline and in `tmpfs`.
///
/// `WORMHOLE_BENCH_PEERS=round-trip` (or `resource`) runs only that figure.
func peerBenchmarks() throws -> [BenchmarkRecord] {
  let figures = try PeerFigure.selected()
  let home = try scratchDirectory()
  defer { try? FileManager.default.removeItem(atPath: home) }
  let bench = try BenchPeer(home: home)
  defer { bench.finish() }
  return try figures.flatMap { figure in
    switch figure {
    case .roundTrip: try peerRoundTripBenchmarks(bench, home: home)
    case .resource: [try peerResourceBenchmark(bench, home: home)]
    }
  }
}

/// The figures of the peers group.
private enum PeerFigure: String, BenchFigure {
  case roundTrip = "round-trip"
  case resource
  static let environmentSwitch = "WORMHOLE_BENCH_PEERS"
}

private let peerMessageBytes = 1024
private let resourceBytes = 100 << 20
private let peerService = "wormbench"

/// What the bench peer's event handler tells the benchmarks.
private final class PeerSignals: Sendable {
  /// Signalled for each reliable message that comes back.
  let echoes = DispatchSemaphore(value: 0)
  /// When the handler had the last one (`now()`): where a round trip ends, as the raw one ends
  /// when its `read` returns, not when the waiting thread wakes.
  let echoed = Mutex<Double>(0)
  /// How each resource this peer sent ended.
  let resourceEnds = Mutex<[PeerResourceID: PeerResourceEvent]>([:])
  /// Signalled for each resource end.
  let resourceEnded = DispatchSemaphore(value: 0)
  /// Round trips sent from the handler (see ``BenchPeer/handlerRoundTrips(_:count:)``), while
  /// they run.
  let chain = Mutex<HandlerChain?>(nil)
  /// Signalled when the chain's last echo came.
  let chainEnded = DispatchSemaphore(value: 0)

  /// The next send of the chain when one more is due, after the round trip that ended at
  /// `time` is counted; `nil` when no chain runs.
  func chainStep(at time: Double) -> (@Sendable () -> Void)? {
    chain.withLock { chain -> (@Sendable () -> Void)? in
      guard var running = chain else { return nil }
      running.samples.append(time - running.sentAt)
      let next = running.samples.count < running.count ? running.send : nil
      chain = running
      if next == nil { chainEnded.signal() }
      return next ?? {}
    }
  }
}

/// A run of round trips each sent by the handler that had the echo before it.
private struct HandlerChain: Sendable {
  let count: Int
  /// Stamps ``sentAt`` and sends the next payload.
  let send: @Sendable () -> Void
  var sentAt: Double = 0
  var samples: [Double] = []
}

/// This process's peer, connected to the echoing child peer.
private final class BenchPeer {
  let peer: LocalPeer
  let child: PairChild
  let other: PeerIdentity
  let signals: PeerSignals

  init(home: String) throws {
    let signals = PeerSignals()
    self.signals = signals
    let service = try ServiceType(peerService)
    peer = try LocalPeer(name: PeerName("bench"), service: service, home: home)
    child = try PairChild(["peer", home, peerService])
    try child.expect("ready")
    let found = Mutex<PeerIdentity?>(nil)
    let foundSignal = DispatchSemaphore(value: 0)
    let connected = DispatchSemaphore(value: 0)
    peer.setEventHandler { event in
      switch event {
      case .found(let identity, _):
        found.withLock { $0 = identity }
        foundSignal.signal()
      case .stateChanged(_, .connected, _):
        connected.signal()
      case .data(_, _, .reliable):
        let time = now()
        if let next = signals.chainStep(at: time) {
          next()
        } else {
          signals.echoed.withLock { $0 = time }
          signals.echoes.signal()
        }
      case .resource(let change):
        switch change {
        case .finished(let progress, _), .cancelled(let progress, _), .failed(let progress, _):
          signals.resourceEnds.withLock { $0[progress.id] = change }
          signals.resourceEnded.signal()
        default: break
        }
      default: break
      }
    }
    try peer.start(advertising: nil, policy: .never, browsing: true)
    guard foundSignal.wait(timeout: .now() + 10) == .success, let other = found.withLock({ $0 }) else {
      throw BenchmarkFailure("the child peer was never found")
    }
    self.other = other
    try peer.engine.invite(other, timeout: 10)
    guard connected.wait(timeout: .now() + 15) == .success else {
      throw BenchmarkFailure("the child peer never connected")
    }
  }

  /// Sends `payload` reliably, waits for its echo, and returns when the handler had it.
  func roundTrip(_ payload: [UInt8]) throws -> Double {
    try peer.engine.send(payload, to: [other], mode: .reliable)
    guard signals.echoes.wait(timeout: .now() + 10) == .success else {
      throw BenchmarkFailure("no echo in 10 s")
    }
    return signals.echoed.withLock { $0 }
  }

  /// `count` round trips, each sent from the handler that had the echo of the one before (the
  /// first from here): one thread on each side takes part, as in the raw round trip. Each lasts
  /// from just before its `send` until the handler has its echo.
  func handlerRoundTrips(_ payload: [UInt8], count: Int) throws -> [Double] {
    let engine = peer.engine
    let other = other
    let signals = signals
    let send: @Sendable () -> Void = {
      signals.chain.withLock { $0?.sentAt = now() }
      do { try engine.send(payload, to: [other], mode: .reliable) } catch { say("send failed: \(error)") }
    }
    signals.chain.withLock { $0 = HandlerChain(count: count, send: send) }
    defer { signals.chain.withLock { $0 = nil } }
    send()
    guard signals.chainEnded.wait(timeout: .now() + 60) == .success else {
      throw BenchmarkFailure("the handler's round trips did not end in 60 s")
    }
    return signals.chain.withLock { $0?.samples ?? [] }
  }

  func finish() {
    peer.stop()
    child.finish()
  }
}

// MARK: Reliable round trips

private func peerRoundTripBenchmarks(_ bench: BenchPeer, home: String) throws -> [BenchmarkRecord] {
  let raw = try RawSocketPeer(directory: home, blockBytes: peerMessageBytes)
  defer { raw.finish() }
  let payload = [UInt8](repeating: 7, count: peerMessageBytes)
  // Each sample: until the bench's handler had the echo, and until its own waiting thread
  // woke (what the figure measured before, kept in `detail` for comparison: one thread wake-up
  // more than the raw round trip has).
  let (samples, theirs) = try raw.alternatingRoundTrips(of: payload) {
    let start = now()
    let handled = try bench.roundTrip(payload) - start
    return (handled: handled, woken: now() - start)
  }
  let ours = samples.map(\.handled)
  let woken = samples.map(\.woken)
  // The same, each sent from the handler that had the previous echo (after a warm-up).
  _ = try bench.handlerRoundTrips(payload, count: 500)
  let fromHandler = try bench.handlerRoundTrips(payload, count: 4000)
  let microseconds = { (seconds: Double) in seconds * 1e6 }
  let baselineName = "raw Unix-socket round trip of the same bytes between two processes"
  let detail = [
    "payload_bytes": Double(peerMessageBytes), "samples": Double(ours.count),
    "woken_p50_us": microseconds(median(woken)), "woken_p99_us": microseconds(percentile(woken, 0.99)),
    "from_handler_p50_us": microseconds(median(fromHandler)),
    "from_handler_p99_us": microseconds(percentile(fromHandler, 0.99)),
  ]
  return [
    BenchmarkRecord(
      name: "peer_reliable_round_trip_p50", unit: "us", value: microseconds(median(ours)),
      baselineName: baselineName, baseline: microseconds(median(theirs)), higherIsBetter: false,
      target: 0.5, detail: detail),
    BenchmarkRecord(
      name: "peer_reliable_round_trip_p99", unit: "us", value: microseconds(percentile(ours, 0.99)),
      baselineName: baselineName, baseline: microseconds(percentile(theirs, 0.99)), higherIsBetter: false,
      target: nil, detail: detail),
  ]
}

// MARK: A 100 MB resource

private func peerResourceBenchmark(_ bench: BenchPeer, home: String) throws -> BenchmarkRecord {
  let source = home + "/resource.bin"
  try writeResource(source)
  let file = try PeerFileSource(path: source)
  let resources = PeerDirectory(home: home, service: try ServiceType(peerService)).resourcesPath(
    bench.other.id)
  let copy = try RawCopyPeer(directory: home, file: resources + "/raw-copy.bin")
  defer { copy.finish() }
  var ours: [Double] = []
  var theirs: [Double] = []
  for _ in 0..<3 {
    var start = now()
    let id = try bench.peer.engine.sendResource(named: "bench.bin", to: bench.other, source: file)
    let landed = try bench.child.line()
    ours.append(now() - start)
    let fields = landed.split(separator: " ", maxSplits: 2)
    guard fields.count == 3, fields[0] == "received", Int(fields[1]) == resourceBytes else {
      throw BenchmarkFailure("the child peer said \(landed)")
    }
    // The sender's end (it follows the receiver's last acknowledgement).
    while bench.signals.resourceEnds.withLock({ $0[id] }) == nil {
      guard bench.signals.resourceEnded.wait(timeout: .now() + 30) == .success else {
        throw BenchmarkFailure("the sender never heard the resource finish")
      }
    }
    guard case .finished? = bench.signals.resourceEnds.withLock({ $0[id] }) else {
      throw BenchmarkFailure(
        "the resource ended as \(String(describing: bench.signals.resourceEnds.withLock { $0[id] }))")
    }
    _ = unlink(String(fields[2]))
    start = now()
    try copy.copy(from: source, bytes: resourceBytes)
    theirs.append(now() - start)
  }
  _ = unlink(source)
  let megabytes = Double(resourceBytes) / Double(1 << 20)
  let fileSystem = fileSystemType(resources)
  diagnose("wormhole-bench peers: resources land in \(resources) (\(fileSystem))")
  return BenchmarkRecord(
    name: "peer_resource_100mb", unit: "MB/s", value: megabytes / median(ours),
    baselineName: "raw copy of the same bytes through a Unix socket between two processes, into a file on "
      + fileSystem,
    baseline: megabytes / median(theirs), higherIsBetter: true, target: 0.5,
    detail: [
      "bytes": Double(resourceBytes), "rounds": Double(ours.count), "seconds": median(ours),
      "baseline_seconds": median(theirs), "tmpfs": isTemporaryFileSystem(resources) ? 1 : 0,
    ])
}

/// Writes `resourceBytes` of a repeating pattern to `path`.
private func writeResource(_ path: String) throws {
  let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  guard descriptor >= 0 else { throw BenchmarkFailure("create \(path): \(errno)") }
  defer { _ = close(descriptor) }
  let block = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
  for _ in 0..<(resourceBytes >> 20) where !writeAll(descriptor, block[...]) {
    throw BenchmarkFailure("write \(path): \(errno)")
  }
}

/// The resource baseline's far end: a child connected to a Unix socket of ours that writes what
/// it reads into a file, told the byte count by an 8-byte header, and answers one byte once the
/// file is closed.
private final class RawCopyPeer {
  private let connection: Int32
  private let child: PairChild

  init(directory: String, file: String) throws {
    let path = directory + "/copy.sock"
    (connection, child) = try RawSocket.accept(at: path) { try PairChild(["copy", path, file]) }
  }

  /// Reads `bytes` of the file at `path` in 64 KB chunks (the peers' chunk size) and writes them
  /// down the socket, then waits for the child's receipt.
  func copy(from path: String, bytes: Int) throws {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw BenchmarkFailure("open \(path): \(errno)") }
    defer { _ = close(descriptor) }
    let header = (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bytes) >> (8 * UInt64($0))) }
    guard writeAll(connection, header[...]) else { throw BenchmarkFailure("the copy child stopped") }
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    var offset = 0
    while offset < bytes {
      let got = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
      guard got > 0 else { throw BenchmarkFailure("read \(path): \(errno)") }
      guard writeAll(connection, chunk[0..<got]) else { throw BenchmarkFailure("the copy child stopped") }
      offset += got
    }
    var receipt = [UInt8](repeating: 0, count: 1)
    guard readAll(connection, &receipt, 1) else { throw BenchmarkFailure("the copy child stopped") }
  }

  func finish() {
    _ = close(connection)
    child.finish()
  }
}

// MARK: The children's side

/// `child-pair peer HOME SERVICE`: a peer named `echo` that advertises, accepts every
/// invitation, sends every reliable message back to its sender, says `ready` once started and
/// `received SIZE PATH` for each resource stored, and ends when its standard input closes.
/// `child-pair copy SOCKET FILE`: the raw copy's far end (see `RawCopyPeer`).
func runPeerChild(_ arguments: [String]) throws -> Never {
  switch (arguments.first, arguments.count) {
  case ("peer", 3):
    let peer = try LocalPeer(
      name: PeerName("echo"), service: ServiceType(arguments[2]), home: arguments[1])
    let engine = peer.engine
    peer.setEventHandler { event in
      switch event {
      case .data(let bytes, let from, .reliable):
        do { try engine.send(bytes, to: [from], mode: .reliable) } catch { say("send failed: \(error)") }
      case .resource(.finished(let progress, let location?)):
        say("received \(progress.bytes) \(location)")
      case .resource(.failed(_, let reason)):
        say("resource failed: \(reason)")
      default:
        break
      }
    }
    try peer.start(advertising: DiscoveryInfo(), policy: .always, browsing: false)
    say("ready")
    waitForStandardInputToClose()
    peer.stop()
    exit(0)
  case ("copy", 3):
    try runCopyChild(socketPath: arguments[1], file: arguments[2])
  default:
    throw BenchmarkFailure("usage: child-pair peer HOME SERVICE | copy SOCKET FILE")
  }
}

private func runCopyChild(socketPath: String, file: String) throws -> Never {
  let connection = try RawSocket.connect(to: socketPath)
  var header = [UInt8](repeating: 0, count: 8)
  var chunk = [UInt8](repeating: 0, count: 64 << 10)
  while readAll(connection, &header, 8) {
    var left = Int((0..<8).reduce(UInt64(0)) { $0 | UInt64(header[$1]) << (8 * UInt64($1)) })
    let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw BenchmarkFailure("create \(file): \(errno)") }
    var offset = 0
    while left > 0 {
      let got = chunk.withUnsafeMutableBytes { read(connection, $0.baseAddress, min($0.count, left)) }
      if got < 0 && errno == EINTR { continue }
      guard got > 0 else { exit(0) }
      let written = chunk.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, got, off_t(offset)) }
      guard written == got else { throw BenchmarkFailure("write \(file): \(errno)") }
      offset += got
      left -= got
    }
    _ = close(descriptor)
    guard writeAll(connection, [1][...]) else { exit(0) }
    _ = unlink(file)  // after the receipt, as the bench removes the peer's file after timing it
  }
  exit(0)
}
