import DevicePairing
import DeviceSession
import Foundation
import Glibc
import KeyedArchive
import Synchronization

/// How verbs reach a device that `device run` holds: a Unix socket, `<role>/control.sock`, that
/// the running device serves. A verb connects, sends one request frame and reads one response.
///
/// Requests reuse the link's frames (`FrameCodec`, bounded and checked), from the device's own
/// role: `.message` (`replyRequested` and `time` = the reply timeout in nanoseconds when waiting),
/// `.context` (`deliversIdentical`), `.transfer`, and `.transferAcknowledgement` with the id of a
/// transfer to cancel. The response is a `.reply` frame: `sequence` is the exit code, and the
/// payload the reply's archive when `replyRequested` is set, else a line to say on standard error.
enum ControlChannel {
  static let fileName = "control.sock"

  /// The control socket of a device.
  static func path(_ directory: DeviceDirectory) -> String { directory.path + "/" + fileName }

  /// What a running device answered.
  struct Response {
    var code: ExitCode
    /// The reply's archive, for a message sent with a reply timeout.
    var reply: [UInt8]?
    /// What to say on standard error.
    var text: String
  }

  // MARK: The verb's side

  /// Sends `request` to the running device at `directory`; `nil` when it serves no control socket
  /// (it is starting, or predates the channel).
  static func send(_ request: DeviceFrame, to directory: DeviceDirectory, waiting seconds: Double)
    throws(CommandError) -> Response?
  {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else {
      throw .failure("cannot create a socket: \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    guard connect(descriptor, path(directory)) else { return nil }
    setTimeout(descriptor, seconds: seconds)
    let bytes: [UInt8]
    do { bytes = try FrameCodec().encode(request) } catch {
      throw .failure("cannot encode the request: \(error)")
    }
    guard writeAll(descriptor, bytes) else {
      throw .failure("the running device closed its control socket: \(String(cString: strerror(errno)))")
    }
    guard let frame = readFrame(descriptor), frame.kind == .reply else {
      throw .failure("the running device gave no answer on its control socket")
    }
    let code = ExitCode(rawValue: Int32(truncatingIfNeeded: frame.sequence)) ?? .failure
    if frame.flags.contains(.replyRequested) { return Response(code: code, reply: frame.payload, text: "") }
    return Response(code: code, reply: nil, text: String(decoding: frame.payload, as: UTF8.self))
  }

  // MARK: The device's side

  /// Serves `session`'s control socket on a thread of its own until the process ends; the socket
  /// file is removed when it ends through ``Termination``.
  static func serve(_ session: SessionEngine, directory: DeviceDirectory) throws(CommandError) {
    let path = path(directory)
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else { throw .failure("cannot create a socket: \(String(cString: strerror(errno)))") }
    _ = unlink(path)  // a dead device's; the run lock says none is alive
    guard withAddress(path, { bind(listener, $0, $1) }) == 0, chmod(path, 0o600) == 0,
      listen(listener, 8) == 0
    else {
      let reason = String(cString: strerror(errno))
      close(listener)
      throw .failure("cannot serve the control socket \(DisplayText.field(path)): \(reason)")
    }
    Termination.onExit { _ = unlink(path) }
    Thread.detachNewThread {
      while true {
        let connection = accept(listener, nil, nil)
        if connection < 0 {
          if errno == EINTR || errno == ECONNABORTED { continue }
          return
        }
        Thread.detachNewThread {
          defer { close(connection) }
          setTimeout(connection, seconds: 10)
          guard let request = readFrame(connection), request.sender == session.role else { return }
          let response = answer(request, session: session)
          var frame = DeviceFrame(
            kind: .reply, sequence: UInt64(response.code.rawValue), sender: session.role, time: 0,
            payload: response.reply ?? Array(response.text.utf8))
          if response.reply != nil { frame.flags = .replyRequested }
          if let bytes = try? FrameCodec().encode(frame) { _ = writeAll(connection, bytes) }
        }
      }
    }
  }

  private static func answer(_ request: DeviceFrame, session: SessionEngine) -> Response {
    let peer = "the \(session.role.counterpart)"
    func failed(_ error: SessionError) -> Response {
      let command = SessionPass.failure(error)
      return Response(code: command.code, reply: nil, text: command.message)
    }
    switch request.kind {
    case .message:
      guard request.flags.contains(.replyRequested) else {
        do throws(SessionError) {
          try session.sendMessage(request.payload, identifier: request.identifier)
        } catch { return failed(error) }
        return Response(code: .success, reply: nil, text: "")
      }
      let outcome = Mutex<Result<[UInt8], SessionError>?>(nil)
      let done = DispatchSemaphore(value: 0)
      do throws(SessionError) {
        try session.sendMessage(
          request.payload, identifier: request.identifier, replyTimeout: Double(request.time) / 1e9
        ) { result in
          outcome.withLock { $0 = result }
          done.signal()
        }
      } catch { return failed(error) }
      done.wait()
      switch outcome.withLock({ $0 }) {
      case .success(let reply)?: return Response(code: .success, reply: reply, text: "")
      case .failure(let error)?: return failed(error)
      case nil: return Response(code: .failure, reply: nil, text: "no reply and no error came back")
      }
    case .context:
      do throws(SessionError) {
        switch try session.updateApplicationContext(
          request.payload, identifier: request.identifier,
          deliveringIdentical: request.flags.contains(.deliversIdentical))
        {
        case .unchanged:
          return Response(
            code: .success, reply: nil,
            text: "the context is unchanged: identical to the current one, it is not delivered "
              + "(give --deliver-identical)")
        case .sent(let version):
          return Response(code: .success, reply: nil, text: "context version \(version) was sent to \(peer)")
        case .queued(let version):
          return Response(
            code: .success, reply: nil,
            text:
              "context version \(version) is queued: \(peer) is not reachable; it is delivered when both run")
        }
      } catch { return failed(error) }
    case .transfer:
      do throws(SessionError) {
        let transfer = try session.transferFile(request.payload, identifier: request.identifier)
        return Response(
          code: .success, reply: nil,
          text: "transfer \(transfer.id) is "
            + (session.isReachable
              ? "sent to \(peer)" : "queued: \(peer) is not reachable; it is delivered when both run"))
      } catch { return failed(error) }
    case .transferAcknowledgement:
      do throws(SessionError) {
        try session.cancelTransfer(request.transferID)
      } catch { return failed(error) }
      return Response(
        code: .success, reply: nil, text: "cancelled transfer \(request.transferID): it is never delivered")
    case .reply, .contextAcknowledgement:
      return Response(code: .usage, reply: nil, text: "the control socket takes no such request")
    }
  }

  // MARK: Sockets

  private static func connect(_ descriptor: Int32, _ path: String) -> Bool {
    withAddress(path) { Glibc.connect(descriptor, $0, $1) } == 0
  }

  private static func setTimeout(_ descriptor: Int32, seconds: Double) {
    let clamped = max(0.001, min(seconds, 1e6))
    var time = timeval(tv_sec: Int(clamped), tv_usec: Int((clamped - Double(Int(clamped))) * 1e6))
    _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
  }

  private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
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
  private static func readFrame(_ descriptor: Int32) -> DeviceFrame? {
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

  /// Calls `body` with `path` as a `sockaddr_un`; -1 with `ENAMETOOLONG` when it does not fit.
  private static func withAddress(
    _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
  ) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else {
      errno = ENAMETOOLONG
      return -1
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
  }
}
