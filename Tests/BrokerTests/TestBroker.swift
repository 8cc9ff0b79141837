import Dispatch
import Foundation
import Glibc
import MQTTClient
import Synchronization
import TestSupport
import Testing

/// A mosquitto of the test's own: 127.0.0.1 on a free port, a generated configuration in a
/// temporary directory, stopped (and its directory removed) by ``stop()``. Never the system's.
final class TestBroker: Sendable {
  let address: BrokerAddress
  private let running: Mutex<ChildProcess>
  private let directory: TemporaryDirectory
  private let log = Collector<String>()

  /// The mosquitto executable, or `nil` when it is not installed.
  static let executable: String? = {
    let candidates = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto", "/usr/local/sbin/mosquitto"]
    return candidates.first { access($0, X_OK) == 0 }
  }()

  /// `mosquitto_sub`, or `nil` when mosquitto-clients is not installed.
  static let subscriber: String? = {
    ["/usr/bin/mosquitto_sub", "/usr/local/bin/mosquitto_sub"].first { access($0, X_OK) == 0 }
  }()

  /// Whether the broker tests can run: mosquitto and libmosquitto are there. Under CI (`CI` set)
  /// they must be, and a missing one fails the run with what to install instead of skipping.
  static let isAvailable: Bool = {
    let library = (try? MQTTClient.load()) != nil
    let ready = executable != nil && subscriber != nil && library
    if !ready && ProcessInfo.processInfo.environment["CI"].map({ !$0.isEmpty }) == true {
      FileHandle.standardError.write(
        Data(
          "BrokerTests: under CI the broker tests never skip: apt install mosquitto mosquitto-clients libmosquitto1\n"
            .utf8))
      return true  // the tests run and fail, saying what is missing
    }
    return ready
  }()

  /// Starts a broker and waits until it listens. With `persistent`, it keeps its retained
  /// messages, persistent sessions and queued messages in its directory (`persistence true`),
  /// saved after every change (`autosave_on_changes`, `autosave_interval 1`), so that a broker
  /// killed and restarted (``restart()``) remembers them.
  convenience init(persistent: Bool = false) throws {
    try self.init(usesTLS: false, persistent: persistent) { _ in "allow_anonymous true" }
  }

  /// Starts a broker whose listener takes the configuration lines `settings` returns (given
  /// the broker's directory, to write files such as certificates, a password file or an ACL
  /// into), and waits until it listens. `usesTLS` only sets ``address``'s scheme.
  init(usesTLS: Bool, persistent: Bool = false, settings: (TemporaryDirectory) throws -> String) throws {
    guard let executable = Self.executable else {
      throw BrokerTestError(
        "mosquitto is not installed: apt install mosquitto mosquitto-clients libmosquitto1")
    }
    try MQTTClient.load()
    directory = TemporaryDirectory(prefix: "broker-test")
    let port = try Self.freePort()
    address = BrokerAddress(host: "127.0.0.1", port: port, usesTLS: usesTLS)
    // As root, mosquitto would become the user "mosquitto", who cannot read (or, persistent,
    // write) the test's files.
    let user = geteuid() == 0 ? "user root\n" : ""
    let persistence =
      persistent
      ? "persistence true\npersistence_location \(directory.path)/\nautosave_on_changes true\nautosave_interval 1"
      : "persistence false"
    directory.write(
      "mosquitto.conf",
      """
      listener \(port) 127.0.0.1
      \(user)\(try settings(directory))
      \(persistence)
      log_dest stderr
      log_type error
      log_type warning
      log_type notice
      log_type information
      log_type subscribe
      """)
    running = Mutex(try Self.launch(executable, configuration: directory.path("mosquitto.conf"), log: log))
    try waitUntilListening(after: 0)
  }

  /// Starts mosquitto on `configuration`, its log lines collected in `log`. A ``ChildProcess``,
  /// not Foundation's `Process`, whose `waitUntilExit()` rarely crashed the test process.
  private static func launch(_ executable: String, configuration: String, log: Collector<String>) throws
    -> ChildProcess
  {
    try ChildProcess(executable, arguments: ["-c", configuration], standardError: .pipe(lineCollector(log)))
  }

  /// Waits for mosquitto's "mosquitto version ... running" (it listens then) among the log
  /// lines after the first `skipped`.
  private func waitUntilListening(after skipped: Int) throws {
    let process = running.withLock { $0 }
    let isRunning = { (lines: [String]) in lines.dropFirst(skipped).contains { $0.contains(" running") } }
    let lines = log.wait(seconds: 10) { isRunning($0) || !process.isRunning }
    guard isRunning(lines) else {
      stop()
      throw BrokerTestError("mosquitto did not start: \(lines.joined(separator: "\n"))")
    }
  }

  /// Kills the broker (its clients see their connections drop), leaving its directory.
  func kill() {
    running.withLock { $0 }.stop(SIGKILL)
  }

  /// Starts the broker again, on the same port, after ``kill()``; it remembers nothing, unless
  /// it was made `persistent`.
  func restart() throws {
    kill()
    guard let executable = Self.executable else { throw BrokerTestError("mosquitto is gone") }
    let skipped = log.values.count
    let process = try Self.launch(executable, configuration: directory.path("mosquitto.conf"), log: log)
    running.withLock { $0 = process }
    try waitUntilListening(after: skipped)
  }

  /// The broker's log so far (connections, disconnections, Wills).
  var logLines: [String] { log.values }

  /// The broker's directory (its configuration and the files tests write for it).
  var files: TemporaryDirectory { directory }

  /// The broker's log as far as the broker had written it when this was called. ``logLines``
  /// is what the test process's thread has read of the pipe so far, which may lag the broker:
  /// a count taken from it is no count of what the broker has done. Here a client of the
  /// test's own connects (the broker logs it in order, after everything before), and the log is
  /// waited on until that line has been read. For a broker that lets an anonymous client in.
  func logCaughtUp() throws -> [String] {
    let identifier = "wormhole-test-log-mark-\(UInt64.random(in: 1 ... .max))"
    let marker = try MQTTClient(clientIdentifier: identifier, cleanSession: true) { _ in }
    try marker.connect(to: address)
    marker.disconnect()
    let isMarked = { (lines: [String]) in lines.contains { $0.contains(" as \(identifier) ") } }
    let lines = log.wait(seconds: 10, until: isMarked)
    guard isMarked(lines) else { throw BrokerTestError("the broker did not log \(identifier) within 10 s") }
    return lines
  }

  /// The broker's log once `condition` holds of it, or after `seconds`.
  func waitForLog(seconds: Double, until condition: ([String]) -> Bool) -> [String] {
    log.wait(seconds: seconds, until: condition)
  }

  /// `mqtt://127.0.0.1:PORT` (`mqtts://` for a TLS broker).
  var url: String { address.description }

  /// Stops the broker and removes its directory. SIGKILL: a child of the test process starts
  /// with SIGTERM blocked (the test runner's threads block it), and the broker keeps nothing.
  func stop() {
    kill()
    directory.remove()
  }

  /// A port nothing listens on now: bound to 0, read back, closed.
  static func freePort() throws -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw BrokerTestError("no socket for a free port") }
    defer { _ = close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
    }
    guard bound == 0, named == 0 else { throw BrokerTestError("cannot find a free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

/// A broker test's set-up failed, in words.
struct BrokerTestError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// `mosquitto_sub` in a child process with its output lines collected, ready once the broker
/// has its subscription: a message published after ``init(_:filter:extra:)`` returns reaches it.
final class Subscriber: Sendable {
  private let process: ChildProcess
  let lines = Collector<String>()

  /// `mosquitto_sub -v` on `filter`: one line per message, `TOPIC PAYLOAD`; retained ones too.
  /// Waits (up to ten seconds) until the broker logs the subscription (`log_type subscribe`):
  /// without that, a message published at once could come before it and never reach it.
  init(_ broker: TestBroker, filter: String, extra: [String] = []) throws {
    guard let executable = TestBroker.subscriber else {
      throw BrokerTestError("mosquitto_sub is not installed: apt install mosquitto-clients")
    }
    let identifier = "wormhole-test-subscriber-\(UInt64.random(in: 1 ... .max))"
    process = try ChildProcess(
      executable,
      arguments: ["-h", "127.0.0.1", "-p", "\(broker.address.port)", "-i", identifier, "-v", "-t", filter]
        + extra,
      standardOutput: .pipe(lineCollector(lines)))
    let subscribed = { (log: [String]) in
      log.contains { $0.contains(": \(identifier) ") && $0.hasSuffix(" \(filter)") }
    }
    guard subscribed(broker.waitForLog(seconds: 10, until: subscribed)) else {
      process.stop(SIGKILL)
      throw BrokerTestError("mosquitto_sub on \(filter) was not subscribed within 10 s")
    }
  }

  /// SIGKILL, as for the broker (SIGTERM is blocked in the child).
  func stop() { process.stop(SIGKILL) }
}

/// A pipe's handler that splits its chunks into lines (without their newline) for `lines`; a
/// last line without a newline is dropped.
func lineCollector(_ lines: Collector<String>) -> @Sendable ([UInt8]) -> Void {
  lineSplitter { lines.append($0) }
}

/// A pipe's handler that hands each line of its chunks (without its newline) to `sink`, in
/// order; a last line without a newline is dropped.
func lineSplitter(_ sink: @escaping @Sendable (String) -> Void) -> @Sendable ([UInt8]) -> Void {
  let partial = Mutex<[UInt8]>([])
  return { chunk in
    let found = partial.withLock { buffer -> [String] in
      buffer.append(contentsOf: chunk)
      var found: [String] = []
      while let newline = buffer.firstIndex(of: 10) {
        found.append(String(decoding: buffer[..<newline], as: UTF8.self))
        buffer.removeSubrange(...newline)
      }
      return found
    }
    for line in found { sink(line) }
  }
}
