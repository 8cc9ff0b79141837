import Dispatch
import Foundation
import Glibc
import MailboxModel
import Synchronization
import TestSupport
import WormholeVocabulary

@testable import MailboxWatcher

/// The shared hermetic directory of every test target.
typealias TemporaryDirectory = TestSupport.TemporaryDirectory

extension TemporaryDirectory {
  /// The path as the model names directories.
  var name: FileName { FileName(path) }
}

extension ModelState {
  /// The mailbox of `identifier` in the directory at `path`, a String for the tests' paths.
  func mailbox(_ identifier: FileName, in path: String) -> Mailbox? {
    mailbox(identifier, in: FileName(path))
  }
}

/// Runs `body` with a live model (of `configuration`) watching a fresh temporary directory as a
/// container, and the signal its updates raise; then cancels the model and removes the directory.
func withWatchedDirectory(
  configuration: ModelConfiguration = ModelConfiguration(),
  _ body: (_ directory: TemporaryDirectory, _ model: LiveModel, _ signal: UpdateSignal) throws -> Void
) throws {
  let directory = TemporaryDirectory()
  defer { directory.remove() }
  let signal = UpdateSignal()
  let model = try LiveModel(
    roots: [.container(directory.path)], configuration: configuration, onUpdate: signal.handler)
  defer { model.cancel() }
  try body(directory, model, signal)
}

/// Wakes a waiting test whenever the model reports an update.
final class UpdateSignal: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)
  private let traffic = Mutex<[TrafficEntry]>([])

  var handler: @Sendable (ModelUpdate) -> Void {
    { [self] update in
      traffic.withLock { $0 += update.newTraffic }
      semaphore.signal()
    }
  }

  /// Every traffic entry delivered through updates so far.
  var deliveredTraffic: [TrafficEntry] { traffic.withLock { $0 } }

  /// Waits until `condition` holds on the model's settled state; false after `seconds` (a
  /// failure bound only: a passing test never waits for it).
  func wait(for model: LiveModel, seconds: Double = 20, until condition: (ModelState) -> Bool) -> Bool {
    let deadline = DispatchTime.now() + seconds
    while !model.sync(condition) {
      if semaphore.wait(timeout: deadline) == .timedOut { return model.sync(condition) }
    }
    return true
  }
}

/// Writes `bytes` to `path` in place (truncate and write), as `cp` does.
func writeInPlace(_ path: String, _ bytes: [UInt8], chunks: Int = 1) {
  let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  guard descriptor >= 0 else { return }
  let size = max(bytes.count / max(chunks, 1), 1)
  var offset = 0
  while offset < bytes.count {
    let end = min(offset + size, bytes.count)
    _ = bytes[offset..<end].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    offset = end
  }
  close(descriptor)
}

/// Writes `bytes` to a temporary file and renames it over `path`, without any journal.
func writeAtomically(_ path: String, _ bytes: [UInt8]) {
  let temporary = path + ".partial"
  writeInPlace(temporary, bytes)
  rename(temporary, path)
}

/// The mailboxes on disk in `directory`: identifier to bytes.
func mailboxesOnDisk(_ directory: String) -> [String: [UInt8]] {
  var result: [String: [UInt8]] = [:]
  for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
  where name.hasSuffix(".archive") {
    if let data = FileManager.default.contents(atPath: directory + "/" + name) {
      result[String(name.dropLast(".archive".count))] = Array(data)
    }
  }
  return result
}

/// The present mailboxes of `directory` in the model: identifier to bytes.
func mailboxesInModel(_ state: ModelState, _ directory: String) -> [String: [UInt8]] {
  var result: [String: [UInt8]] = [:]
  for mailbox in state.directories[FileName(directory)]?.mailboxes.values.map({ $0 }) ?? [] {
    if let current = mailbox.current { result[mailbox.identifier.lossyText] = current.bytes ?? [] }
  }
  return result
}
