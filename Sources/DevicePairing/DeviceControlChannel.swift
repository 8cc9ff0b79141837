import DeviceSession
import Glibc

/// How a process reaches a device that another process runs: a Unix socket,
/// `<home>/pairs/<pair>/<role>/control.sock` (the user's only), that the running device serves
/// (``DeviceControlServer``). A client connects, sends one request frame, reads one answer
/// frame and closes; ``PairedDeviceClient`` is the way to use it.
///
/// Requests and answers are the link's bounded frames (``FrameCodec``): see `ControlRequest`
/// and `ControlAnswer` for what each field carries. A request must come from the device's own
/// role; garbage, an oversized announcement or a frame of the other role is dropped without an
/// answer.
public enum DeviceControlChannel {
  /// The socket's file name in the device's directory.
  public static let fileName = "control.sock"

  /// The control socket of a device.
  public static func socketPath(of directory: DeviceDirectory) -> String { directory.path + "/" + fileName }

  /// Sends `request` to the device at `directory` and waits up to `seconds` for the answer;
  /// `nil` when nothing serves its control socket.
  static func send(_ request: DeviceFrame, to directory: DeviceDirectory, waiting seconds: Double)
    throws(PairedDeviceError) -> ControlAnswer?
  {
    guard let frame = try exchange(request, with: directory, waiting: seconds) else { return nil }
    guard let answer = try? ControlAnswer(frame) else {
      throw .controlChannel(
        directory.address, reason: "the running device gave no answer on its control socket")
    }
    return answer
  }

  /// Sends `request` to the device at `directory` and waits up to `seconds` for its `.reply`
  /// frame; `nil` when nothing serves its control socket.
  static func exchange(_ request: DeviceFrame, with directory: DeviceDirectory, waiting seconds: Double)
    throws(PairedDeviceError) -> DeviceFrame?
  {
    let address = directory.address
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else {
      throw .controlChannel(address, reason: "cannot create a socket: \(String(cString: strerror(errno)))")
    }
    defer { _ = close(descriptor) }
    let path = socketPath(of: directory)
    guard LocalSocket.withAddress(path, { connect(descriptor, $0, $1) }) == 0 else { return nil }
    setTimeout(descriptor, seconds: seconds)
    let bytes: [UInt8]
    do { bytes = try FrameCodec().encode(request) } catch {
      throw .controlChannel(address, reason: "cannot encode the request: \(error)")
    }
    guard writeAll(descriptor, bytes) else {
      throw .controlChannel(
        address, reason: "the running device closed its control socket: \(String(cString: strerror(errno)))")
    }
    guard let frame = readFrame(descriptor), frame.kind == .reply, frame.sender == address.role else {
      throw .controlChannel(address, reason: "the running device gave no answer on its control socket")
    }
    return frame
  }

  // MARK: Sockets

  static func setTimeout(_ descriptor: Int32, seconds: Double) {
    let clamped = max(0.001, min(seconds, 1e6))
    var time = timeval(tv_sec: Int(clamped), tv_usec: Int((clamped - Double(Int(clamped))) * 1e6))
    _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
  }

  static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
    bytes.withUnsafeBytes { buffer -> Bool in
      var offset = 0
      while offset < buffer.count {
        let sent = Glibc.send(
          descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, Int32(MSG_NOSIGNAL))
        if sent < 0 {
          if errno == EINTR { continue }
          return false
        }
        offset += sent
      }
      return true
    }
  }

  /// One whole frame, or `nil` when the connection ends, times out or sends something else.
  static func readFrame(_ descriptor: Int32) -> DeviceFrame? {
    var reader = FrameReader()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      do {
        if let frame = try reader.next() { return frame }
      } catch { return nil }
      let got = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      if got < 0 && errno == EINTR { continue }
      guard got > 0 else { return nil }
      reader.append(buffer[0..<got])
    }
  }
}
