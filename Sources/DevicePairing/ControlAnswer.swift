import DeviceSession

/// A running device's answer to a ``ControlRequest``: a `.reply` frame from the device's role.
///
/// `sequence` says what it is (1 a message's, 2 a context's, 3 a transfer's, 4 a cancellation,
/// 5 a failure). A message's answer carries the reply's archive as its payload (`replyRequested`
/// set when there is one); the others carry their values in the payload, big-endian: a context
/// `u8 update (0 unchanged, 1 sent, 2 queued) u64 version u8 stored`; a transfer `u64 id
/// u8 reachable u8 stored`; a failure the ``SessionError`` (`u8 case`, then its numbers as `u64`
/// and texts as `u32 length, UTF-8`): 1 not activated, 2 not reachable, 3 too large (bytes,
/// limit), 4 reply timed out (seconds' bits), 5 transfer not found (id), 6 already sent (id),
/// 7 invalid identifier (identifier, reason), 8 storage (reason), 9 link unavailable (reason),
/// 10 refused frame (reason), 11 link denied (0 refused or 1 taken over, reason), 12 refused
/// input of unknown sender (origin, reason).
enum ControlAnswer: Sendable, Equatable {
  case message(reply: [UInt8]?)
  case context(SessionEngine.ContextUpdate, stored: Bool)
  case transfer(id: UInt64, reachable: Bool, stored: Bool)
  case cancelled
  case failed(SessionError)

  func frame(sender: DeviceRole) -> DeviceFrame {
    var frame = DeviceFrame(kind: .reply, sender: sender, time: 0)
    var writer = ByteWriter()
    switch self {
    case .message(let reply):
      frame.sequence = 1
      if let reply {
        frame.flags = .replyRequested
        frame.payload = reply
      }
      return frame
    case .context(let update, let stored):
      frame.sequence = 2
      let (kind, version): (UInt8, UInt64) =
        switch update {
        case .unchanged: (0, 0)
        case .sent(let version): (1, version)
        case .queued(let version): (2, version)
        }
      writer.append(kind)
      writer.append(version)
      writer.append(UInt8(stored ? 1 : 0))
    case .transfer(let id, let reachable, let stored):
      frame.sequence = 3
      writer.append(id)
      writer.append(UInt8(reachable ? 1 : 0))
      writer.append(UInt8(stored ? 1 : 0))
    case .cancelled:
      frame.sequence = 4
    case .failed(let error):
      frame.sequence = 5
      Self.write(error, to: &writer)
    }
    frame.payload = writer.bytes
    return frame
  }

  /// The answer a `.reply` frame carries; a frame that is none is refused.
  init(_ frame: DeviceFrame) throws(FrameError) {
    guard frame.kind == .reply else { throw .malformed("the answer is not a reply frame") }
    var reader = ByteReader(frame.payload)
    switch frame.sequence {
    case 1:
      self = .message(reply: frame.flags.contains(.replyRequested) ? frame.payload : nil)
      return
    case 2:
      let kind = try reader.readByte()
      let version = try reader.readUInt64()
      let stored = try reader.readByte() == 1
      switch kind {
      case 0: self = .context(.unchanged, stored: stored)
      case 1: self = .context(.sent(version: version), stored: stored)
      case 2: self = .context(.queued(version: version), stored: stored)
      default: throw .malformed("a context answer of kind \(kind)")
      }
    case 3:
      let id = try reader.readUInt64()
      let reachable = try reader.readByte() == 1
      self = .transfer(id: id, reachable: reachable, stored: try reader.readByte() == 1)
    case 4:
      self = .cancelled
    case 5:
      self = .failed(try Self.readError(&reader))
    default:
      throw .malformed("an answer of kind \(frame.sequence)")
    }
    guard reader.remaining == 0 else { throw .malformed("\(reader.remaining) bytes follow the answer") }
  }

  private static func write(_ text: String, to writer: inout ByteWriter) {
    let bytes = Array(text.utf8)
    writer.append(UInt32(truncatingIfNeeded: bytes.count))
    writer.append(contentsOf: bytes)
  }

  private static func readText(_ reader: inout ByteReader) throws(FrameError) -> String {
    try reader.readText(Int(try reader.readUInt32()), what: "error text")
  }

  private static func write(_ error: SessionError, to writer: inout ByteWriter) {
    let (kind, numbers, texts): (UInt8, [UInt64], [String]) =
      switch error {
      case .notActivated: (1, [], [])
      case .notReachable: (2, [], [])
      case .payloadTooLarge(let bytes, let limit): (3, [UInt64(max(0, bytes)), UInt64(max(0, limit))], [])
      case .replyTimedOut(let seconds): (4, [seconds.bitPattern], [])
      case .transferNotFound(let id): (5, [id], [])
      case .transferAlreadySent(let id): (6, [id], [])
      case .invalidIdentifier(let identifier, let reason): (7, [], [identifier, reason])
      case .storage(let reason): (8, [], [reason])
      case .linkUnavailable(let reason): (9, [], [reason])
      case .refusedFrame(let reason): (10, [], [reason])
      case .linkDenied(let denial): (11, [denial.kind == .takenOver ? 1 : 0], [denial.reason])
      case .refusedInput(let input): (12, [], [input.origin, input.reason])
      }
    writer.append(kind)
    for number in numbers { writer.append(number) }
    for text in texts { write(text, to: &writer) }
  }

  private static func readError(_ reader: inout ByteReader) throws(FrameError) -> SessionError {
    switch try reader.readByte() {
    case 1: return .notActivated
    case 2: return .notReachable
    case 3:
      let bytes = Int(clamping: try reader.readUInt64())
      return .payloadTooLarge(bytes: bytes, limit: Int(clamping: try reader.readUInt64()))
    case 4: return .replyTimedOut(seconds: Double(bitPattern: try reader.readUInt64()))
    case 5: return .transferNotFound(try reader.readUInt64())
    case 6: return .transferAlreadySent(try reader.readUInt64())
    case 7:
      let identifier = try readText(&reader)
      return .invalidIdentifier(identifier, reason: try readText(&reader))
    case 8: return .storage(try readText(&reader))
    case 9: return .linkUnavailable(try readText(&reader))
    case 10: return .refusedFrame(try readText(&reader))
    case 11:
      let kind: LinkDenial.Kind =
        switch try reader.readUInt64() {
        case 0: .refused
        case 1: .takenOver
        case let other: throw .malformed("a link denial of kind \(other)")
        }
      return .linkDenied(LinkDenial(kind, reason: try readText(&reader)))
    case 12:
      let origin = try readText(&reader)
      return .refusedInput(RefusedInput(origin, reason: try readText(&reader)))
    case let other: throw .malformed("an error of kind \(other)")
    }
  }
}
