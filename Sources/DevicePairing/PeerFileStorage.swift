import Glibc
import PeerSession
import Synchronization

/// Received resources as files in a peer's `resources/` folder: `<sender>-<number>.part` while
/// arriving, renamed to `<sender>-<number>-<name>` when complete (the sender's name made a safe
/// file name: `/`, control characters and a leading `.` become `_`), removed when discarded.
public final class PeerFileStorage: PeerResourceStorage {
  /// The folder.
  public let path: String
  private let files = Mutex<[PeerResourceID: (descriptor: Int32, name: String)]>([:])

  public init(path: String) { self.path = path }

  deinit {
    files.withLock { files in for file in files.values { _ = close(file.descriptor) } }
  }

  /// The file name a resource named `name` is kept under.
  public static func fileName(_ id: PeerResourceID, name: String) -> String {
    var safe = String(
      String.UnicodeScalarView(
        name.unicodeScalars.map { $0 == "/" || $0.value < 0x20 || $0.value == 0x7F ? "_" : $0 }))
    if safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
    return "\(PeerDirectory.hex(id.sender))-\(id.number)-\(safe)"
  }

  private func partPath(_ id: PeerResourceID) -> String {
    path + "/\(PeerDirectory.hex(id.sender))-\(id.number).part"
  }

  public func begin(_ resource: PeerResourceID, name: String, size: UInt64) throws(PeerError) {
    do throws(SystemCallFailure) { try DeviceFiles.makeDirectories(path) } catch {
      throw .storage(error.message)
    }
    let part = partPath(resource)
    let descriptor = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else {
      throw .storage(SystemCallFailure(operation: "create", path: part, code: errno).message)
    }
    files.withLock { $0[resource] = (descriptor, name) }
  }

  public func write(_ resource: PeerResourceID, bytes: [UInt8], at offset: UInt64) throws(PeerError) {
    guard let file = files.withLock({ $0[resource] }) else { throw .resourceNotFound(resource) }
    var written = 0
    while written < bytes.count {
      let count = bytes.withUnsafeBytes {
        pwrite(
          file.descriptor, $0.baseAddress.map { $0 + written }, $0.count - written,
          off_t(offset) + off_t(written))
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw .storage(SystemCallFailure(operation: "write", path: partPath(resource), code: errno).message)
      }
      written += count
    }
  }

  public func finish(_ resource: PeerResourceID) throws(PeerError) -> String {
    guard let file = files.withLock({ $0.removeValue(forKey: resource) }) else {
      throw .resourceNotFound(resource)
    }
    _ = close(file.descriptor)
    let final = path + "/" + Self.fileName(resource, name: file.name)
    guard rename(partPath(resource), final) == 0 else {
      throw .storage(SystemCallFailure(operation: "rename", path: final, code: errno).message)
    }
    return final
  }

  public func discard(_ resource: PeerResourceID) {
    if let file = files.withLock({ $0.removeValue(forKey: resource) }) { _ = close(file.descriptor) }
    _ = unlink(partPath(resource))
  }
}
