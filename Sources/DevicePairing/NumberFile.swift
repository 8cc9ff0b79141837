import Glibc
import Synchronization

/// A file holding one decimal number that is rewritten in place, for the counters a device
/// updates once per transfer (`outbox/next-id`, `received-transfers`).
///
/// Each value is written as 20 digits and a newline with one `pwrite` at offset 0, so the file
/// always holds a whole number: a process killed at any point leaves the old value or the new
/// (a write to the page cache is not torn by a signal). Unlike a temporary file renamed over the
/// old one, this makes no new inode per update: on ext4, thousands of creations and deletions in
/// a burst make each further creation slower (its inode allocator skips recently deleted inodes),
/// which made delivering 10,000 queued transfers quadratic.
final class NumberFile: Sendable {
  let path: String
  private let descriptor = Mutex<Int32>(-1)

  init(path: String) { self.path = path }

  deinit { descriptor.withLock { if $0 >= 0 { _ = close($0) } } }

  /// Writes `value`, opening (and creating) the file on first use.
  func write(_ value: UInt64) throws(SystemCallFailure) {
    let digits = String(value)
    let text = Array((String(repeating: "0", count: max(0, 20 - digits.count)) + digits + "\n").utf8)
    try descriptor.withLock { descriptor throws(SystemCallFailure) in
      if descriptor < 0 {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw SystemCallFailure(operation: "open", path: path, code: errno) }
      }
      let written = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
      guard written == text.count else {
        throw SystemCallFailure(operation: "write", path: path, code: written < 0 ? errno : EIO)
      }
    }
  }
}
