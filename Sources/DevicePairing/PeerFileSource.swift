import Glibc
import PeerSession

/// A resource's bytes read from a file, a chunk at a time (`pread`): `peer send-resource FILE`.
public final class PeerFileSource: PeerResourceSource {
  public let path: String
  public let size: UInt64
  private let descriptor: Int32

  /// Opens the regular file at `path`; throws with the reason when it cannot be read.
  public init(path: String) throws(PeerError) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw .storage(SystemCallFailure(operation: "open", path: path, code: errno).message)
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      _ = close(descriptor)
      throw .storage("\(PairDisplay.path(path)) is not a regular file")
    }
    self.path = path
    self.descriptor = descriptor
    size = UInt64(status.st_size)
  }

  deinit { _ = close(descriptor) }

  public func read(offset: UInt64, count: Int) throws(PeerError) -> [UInt8] {
    // Not zeroed first: every byte returned is read into it.
    var failure: PeerError?
    let bytes = [UInt8](unsafeUninitializedCapacity: max(0, count)) { buffer, initialized in
      var got = 0
      while got < buffer.count {
        let read = pread(
          descriptor, buffer.baseAddress.map { $0 + got }, buffer.count - got, off_t(offset) + off_t(got))
        if read < 0 {
          if errno == EINTR { continue }
          failure = .storage(SystemCallFailure(operation: "read", path: path, code: errno).message)
          break
        }
        if read == 0 { break }
        got += read
      }
      initialized = got
    }
    if let failure { throw failure }
    return bytes
  }
}
