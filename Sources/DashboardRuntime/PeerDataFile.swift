import ArchivedValues
import Dashboard
import Glibc

/// The bytes a ``Dashboard/PeerDataSend`` sends: what was typed, or the file `@FILE` names,
/// read when the send runs (on the executor's queue), as `peer send @FILE` reads it: a regular
/// file (a FIFO or a device is refused, never waited on) of at most
/// ``Dashboard/PeerDataSend/maximumFileBytes``.
enum PeerDataFile {
  /// Why a file cannot be sent, in words for the message log.
  struct Refusal: Error, Equatable {
    var reason: String
  }

  /// The bytes `send` sends.
  static func bytes(of send: PeerDataSend) -> Result<[UInt8], Refusal> {
    guard let file = send.file else { return .success(send.data) }
    return read(file, limit: PeerDataSend.maximumFileBytes)
  }

  /// The bytes of the regular file at `path`, at most `limit` of them.
  static func read(_ path: String, limit: Int) -> Result<[UInt8], Refusal> {
    let shown = DisplayText.field(path)
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      return .failure(
        Refusal(reason: "cannot open the data file \(shown): \(String(cString: strerror(errno)))"))
    }
    defer { _ = close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      return .failure(
        Refusal(reason: "cannot read the data file \(shown): \(String(cString: strerror(errno)))"))
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      return .failure(Refusal(reason: "the data file \(shown) is not a regular file"))
    }
    let refusal = { (size: Int) in
      Refusal(
        reason: "the data file \(shown) is \(size) bytes; a peer sends at most \(limit) bytes (16 MiB) "
          + "at a time: send it as a resource (peer send-resource)")
    }
    guard Int(status.st_size) <= limit else { return .failure(refusal(Int(status.st_size))) }
    // One byte more than the limit is asked for, so a file that grew since is still refused.
    var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
    var count = 0
    while count < bytes.count {
      let got = bytes.withUnsafeMutableBytes { buffer -> Int in
        guard let base = buffer.baseAddress else { return 0 }
        return Glibc.read(descriptor, base + count, buffer.count - count)
      }
      if got < 0 && errno == EINTR { continue }
      guard got >= 0 else {
        return .failure(
          Refusal(reason: "cannot read the data file \(shown): \(String(cString: strerror(errno)))"))
      }
      if got == 0 { break }
      count += got
      if count == bytes.count, count <= limit { bytes.append(contentsOf: repeatElement(0, count: 65536)) }
    }
    guard count <= limit else { return .failure(refusal(count)) }
    return .success(Array(bytes[0..<count]))
  }
}
