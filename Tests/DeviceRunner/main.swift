// A simulated device in its own process, for the tests that kill one, and the link's measurement.
//
//   device-runner HOME PAIR ROLE hold               activate; print "activated PID"; wait to be killed
//   device-runner HOME PAIR ROLE transfer N SIZE    activate; queue N transfers of SIZE bytes for
//                                                   identifier "t" (payload: the index, then filler);
//                                                   print "queued" then "done" when all are stored
//   device-runner HOME PAIR ROLE drain              activate; print "done" when the outbox is empty
//   device-runner measure COUNT [DIR]                    round trips of 1 KB: raw socket pair vs the link
//   device-runner measure-queue COUNT [DIR]              queued transfers delivered on activation vs renames
import DevicePairing
import DeviceSession
import Glibc
import Synchronization

/// A pipe used as a wake-up: `signal()` from any thread, `wait()` on the main one.
final class Wakeup: Sendable {
  let ends: (Int32, Int32)
  init() {
    var pair: [Int32] = [-1, -1]
    _ = pipe(&pair)
    ends = (pair[0], pair[1])
  }
  func signal() {
    var byte: UInt8 = 1
    _ = write(ends.1, &byte, 1)
  }
  func wait() {
    var byte: UInt8 = 0
    while read(ends.0, &byte, 1) < 0 && errno == EINTR {}
  }
}

func say(_ line: String) {
  let bytes = Array((line + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
  let bytes = Array(("device-runner: " + message + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
  exit(2)
}

/// The payload of transfer number `index`: the index in 8 bytes, then a filler that depends on it.
func transferPayload(_ index: UInt64, size: Int) -> [UInt8] {
  var bytes = (0..<8).map { UInt8(truncatingIfNeeded: index >> (56 - 8 * $0)) }
  bytes += (8..<max(size, 8)).map { UInt8(truncatingIfNeeded: (Int(index) &+ $0) % 251) }
  return bytes
}

func nanoseconds() -> Int64 {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

func median(_ values: [Int64]) -> Int64 { values.sorted()[values.count / 2] }

/// Round trips of a 1 KB frame over a raw socket pair (an echo thread) and over two
/// `UnixSocketLink`s of a pair under `home` (the echo on the watch link's thread).
func measure(count: Int, home: String) {
  var sockets: [Int32] = [-1, -1]
  guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets) == 0 else { fail("no socket pair") }
  let payload = [UInt8](repeating: 7, count: 1024)
  let echoSocket = sockets[1]
  var thread = pthread_t()
  let box = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
  box.initialize(to: echoSocket)
  _ = pthread_create(
    &thread, nil,
    { raw in
      guard let socket = raw?.assumingMemoryBound(to: Int32.self).pointee else { return nil }
      var buffer = [UInt8](repeating: 0, count: 1024)
      while true {
        var got = 0
        while got < 1024 {
          let count = buffer.withUnsafeMutableBytes {
            read(socket, $0.baseAddress.map { $0 + got }, 1024 - got)
          }
          if count <= 0 { return nil }
          got += count
        }
        _ = buffer.withUnsafeBytes { write(socket, $0.baseAddress, 1024) }
      }
    }, box)
  var raw: [Int64] = []
  var buffer = [UInt8](repeating: 0, count: 1024)
  for _ in 0..<count {
    let start = nanoseconds()
    _ = payload.withUnsafeBytes { write(sockets[0], $0.baseAddress, 1024) }
    var got = 0
    while got < 1024 {
      let count = buffer.withUnsafeMutableBytes {
        read(sockets[0], $0.baseAddress.map { $0 + got }, 1024 - got)
      }
      if count <= 0 { fail("the echo thread stopped") }
      got += count
    }
    raw.append(nanoseconds() - start)
  }
  _ = close(sockets[0])
  _ = pthread_join(thread, nil)

  let store = PairStore(home: home)
  guard let name = try? PairName("measure"), let pair = try? store.create(name) else {
    fail("no pair under \(home)")
  }
  let phone = UnixSocketLink(directory: store.directory(for: pair.phone))
  let watch = UnixSocketLink(directory: store.directory(for: pair.watch))
  let reachable = Wakeup()
  let answered = Wakeup()
  do {
    try watch.start { event in
      if case .received(var frame) = event {
        frame.sender = .watch
        frame.kind = .reply
        _ = watch.send(frame)
      }
    }
    try phone.start { event in
      switch event {
      case .reachabilityChanged(true): reachable.signal()
      case .received: answered.signal()
      default: break
      }
    }
  } catch { fail("\(error)") }
  reachable.wait()
  var linked: [Int64] = []
  for index in 0..<count {
    let start = nanoseconds()
    let frame = DeviceFrame(
      kind: .message, identifier: "measure", sequence: UInt64(index), sender: .phone, time: 0,
      payload: payload)
    guard phone.send(frame) else { fail("the watch is not reachable") }
    answered.wait()
    linked.append(nanoseconds() - start)
  }
  phone.stop()
  watch.stop()
  let sessions = measureSessions(count: count, store: store, pair: pair, payload: payload)
  let rawMedian = median(raw)
  let linkMedian = median(linked)
  let sessionMedian = median(sessions)
  say("raw socket pair round trip p50: \(rawMedian / 1000) us (\(rawMedian) ns)")
  say("UnixSocketLink frame round trip p50: \(linkMedian / 1000) us (\(linkMedian) ns)")
  say("ratio: \(Double(linkMedian) / Double(max(rawMedian, 1)))")
  say("session message and reply round trip p50: \(sessionMedian / 1000) us (\(sessionMedian) ns)")
  say("ratio: \(Double(sessionMedian) / Double(max(rawMedian, 1)))")
}

/// Round trips of a 1 KB session message and its reply between two simulated devices.
func measureSessions(count: Int, store: PairStore, pair: Pair, payload: [UInt8]) -> [Int64] {
  let phone: SimulatedDevice
  let watch: SimulatedDevice
  do {
    phone = try SimulatedDevice(store: store, address: pair.phone, applicationGroup: "group.measure")
    watch = try SimulatedDevice(store: store, address: pair.watch, applicationGroup: "group.measure")
  } catch { fail(error.description) }
  let reachable = Wakeup()
  let answered = Wakeup()
  let session = watch.session
  session.setDeliveryHandler { delivery in
    if case .message(let message) = delivery { try? session.reply(to: message, with: message.payload) }
  }
  phone.session.setDeliveryHandler { delivery in
    if delivery == .reachabilityChanged(true) { reachable.signal() }
  }
  do {
    try watch.session.activate()
    try phone.session.activate()
  } catch { fail(error.description) }
  reachable.wait()
  var times: [Int64] = []
  for _ in 0..<count {
    let start = nanoseconds()
    do {
      try phone.session.sendMessage(payload, identifier: "measure", replyTimeout: 10) { _ in answered.signal()
      }
    } catch { fail(error.description) }
    answered.wait()
    times.append(nanoseconds() - start)
  }
  phone.stop()
  watch.stop()
  return times
}

/// Delivery of `count` transfers queued while the watch was away, from the phone's start to the
/// last one stored, against `rename`s of as many files of the same size.
func measureQueue(count: Int, home: String) {
  let payload = [UInt8](repeating: 3, count: 200)
  let store = PairStore(home: home)
  guard let name = try? PairName("queue"), let pair = try? store.create(name) else {
    fail("no pair under \(home)")
  }
  do {
    let phone = try SimulatedDevice(store: store, address: pair.phone, applicationGroup: "group.measure")
    try phone.session.activate()
    for _ in 0..<count { try phone.session.transferFile(payload, identifier: "queued") }
    phone.stop()
  } catch { fail("\(error)") }
  let all = Wakeup()
  let received = Counter()
  let watch: SimulatedDevice
  do {
    watch = try SimulatedDevice(store: store, address: pair.watch, applicationGroup: "group.measure")
    watch.session.setDeliveryHandler { delivery in
      if case .transfer = delivery, received.increment() == count { all.signal() }
    }
    try watch.session.activate()
  } catch { fail("\(error)") }
  let start = nanoseconds()
  let phone: SimulatedDevice
  do {
    phone = try SimulatedDevice(store: store, address: pair.phone, applicationGroup: "group.measure")
    try phone.session.activate()
  } catch { fail("\(error)") }
  all.wait()
  let delivered = nanoseconds() - start
  phone.stop()
  watch.stop()
  // The baseline: as many files of the same size, renamed into another directory.
  let from = home + "/rename-from"
  let to = home + "/rename-to"
  _ = mkdir(from, 0o700)
  _ = mkdir(to, 0o700)
  for index in 0..<count {
    let descriptor = open(from + "/\(index)", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    _ = payload.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    _ = close(descriptor)
  }
  let renameStart = nanoseconds()
  for index in 0..<count { _ = rename(from + "/\(index)", to + "/\(index)") }
  let renamed = nanoseconds() - renameStart
  for index in 0..<count { _ = unlink(to + "/\(index)") }
  _ = rmdir(from)
  _ = rmdir(to)
  let rate = Double(count) / (Double(delivered) / 1e9)
  let renameRate = Double(count) / (Double(renamed) / 1e9)
  say("\(count) queued transfers delivered on activation: \(Int(rate))/s (\(delivered / 1_000_000) ms)")
  say("\(count) renames of the same files: \(Int(renameRate))/s (\(renamed / 1_000_000) ms)")
  say("ratio (transfers/renames): \(rate / renameRate)")
  _ = try? store.delete(name, force: true)
}

/// A count shared between threads.
final class Counter: Sendable {
  private let value = Mutex(0)
  func increment() -> Int {
    value.withLock {
      $0 += 1; return $0
    }
  }
}

let arguments = CommandLine.arguments
if arguments.count >= 3 && arguments[1] == "measure-queue" {
  let base = CommandLine.arguments.count >= 4 ? CommandLine.arguments[3] : "/tmp"
  var template = Array((base + "/device-measure-XXXXXX").utf8CString)
  let home = template.withUnsafeMutableBufferPointer { buffer -> String? in
    guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
    return String(cString: base)
  }
  guard let home else { fail("no temporary directory") }
  measureQueue(count: Int(arguments[2]) ?? 10000, home: home)
  _ = rmdir(home + "/pairs")
  _ = rmdir(home)
  exit(0)
}
if arguments.count >= 3 && arguments[1] == "measure" {
  let base = CommandLine.arguments.count >= 4 ? CommandLine.arguments[3] : "/tmp"
  var template = Array((base + "/device-measure-XXXXXX").utf8CString)
  let home = template.withUnsafeMutableBufferPointer { buffer -> String? in
    guard let base = buffer.baseAddress, mkdtemp(base) != nil else { return nil }
    return String(cString: base)
  }
  guard let home else { fail("no temporary directory") }
  measure(count: Int(arguments[2]) ?? 1000, home: home)
  _ = try? PairStore(home: home).delete(PairName("measure"), force: true)
  _ = rmdir(home + "/pairs")
  _ = rmdir(home)
  exit(0)
}
guard arguments.count >= 5, let role = DeviceRole(rawValue: arguments[3]) else {
  fail("usage: device-runner HOME PAIR phone|watch hold|transfer N SIZE|drain")
}
let store = PairStore(home: arguments[1])
let device: SimulatedDevice
do {
  let name = try PairStore.name(arguments[2])
  device = try SimulatedDevice(
    store: store, address: DeviceAddress(pair: name, role: role), applicationGroup: "group.test")
} catch { fail(error.description) }

let finished = Wakeup()
device.session.setDeliveryHandler { delivery in
  if case .transferFinished = delivery { finished.signal() }
}
do { try device.session.activate() } catch { fail(error.description) }

switch arguments[4] {
case "hold":
  say("activated \(getpid())")
  while true { pause() }
case "transfer":
  guard arguments.count >= 7, let count = UInt64(arguments[5]), let size = Int(arguments[6]) else {
    fail("usage: transfer N SIZE")
  }
  for index in 1...max(count, 1) {
    do { try device.session.transferFile(transferPayload(index, size: size), identifier: "t") } catch {
      fail(error.description)
    }
  }
  say("queued")
  fallthrough
case "drain":
  while !device.session.outstandingTransfers.isEmpty { finished.wait() }
  say("done")
  device.stop()
  exit(0)
default:
  fail("unknown command \(arguments[4])")
}
