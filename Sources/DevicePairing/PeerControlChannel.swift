import Glibc

/// How a process reaches a running peer: its control socket, `ID.control.sock` (the user's
/// only), served by ``LocalPeer``. A client connects, sends one ``PeerControlMessage``, reads
/// one answer and closes.
public enum PeerControlChannel {
  /// Sends `request` to the socket at `path` and waits up to `seconds` for the answer; `nil`
  /// when nothing serves it or no answer came.
  public static func exchange(_ request: PeerControlMessage, path: String, seconds: Double)
    -> PeerControlMessage?
  {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return nil }
    defer { _ = close(descriptor) }
    guard LocalSocket.withAddress(path, { connect(descriptor, $0, $1) }) == 0 else { return nil }
    DeviceControlChannel.setTimeout(descriptor, seconds: seconds)
    guard DeviceControlChannel.writeAll(descriptor, request.encoded) else { return nil }
    return read(descriptor)
  }

  /// One whole message, or `nil` when the connection ends, times out or sends something else.
  static func read(_ descriptor: Int32) -> PeerControlMessage? {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      if bytes.count >= 4 {
        guard let length = PeerControlMessage.announcedLength(bytes[0..<4]) else { return nil }
        if bytes.count >= 4 + length { return PeerControlMessage(body: bytes[4..<(4 + length)]) }
      }
      let got = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if got < 0 && errno == EINTR { continue }
      guard got > 0 else { return nil }
      bytes.append(contentsOf: buffer[0..<got])
    }
  }
}
