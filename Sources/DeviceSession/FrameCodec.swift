/// The wire form of a ``DeviceFrame``: a length prefix, a fixed header, the identifier, the payload.
///
/// ```
/// u32 length of what follows          (big-endian, at most maximumFrameBytes)
/// "WD" u8 version=1 u8 kind u8 sender u8 flags u16 identifier-length
/// u64 sequence  u64 transfer-id  i64 time (ns since 1970)  u32 payload-length
/// identifier (UTF-8)  payload
/// ```
/// Every length is checked against the frame's before anything is allocated, so an oversized,
/// truncated or garbage frame is an error, never a crash or a huge allocation.
public struct FrameCodec: LengthPrefixedCodec {
  /// The largest frame accepted by default: a 64 MiB archive (the mailbox limit) and its header.
  public static let defaultMaximumFrameBytes = (64 << 20) + 1024
  /// The longest identifier, in UTF-8 bytes (a mailbox file name must fit 255 bytes).
  public static let maximumIdentifierBytes = 255
  public static let headerBytes = 36
  public static let magic: (UInt8, UInt8) = (UInt8(ascii: "W"), UInt8(ascii: "D"))
  public static let version: UInt8 = 1

  /// The largest frame (what follows the length prefix), in bytes.
  public var maximumFrameBytes: Int

  public init(maximumFrameBytes: Int = FrameCodec.defaultMaximumFrameBytes) {
    self.maximumFrameBytes = maximumFrameBytes
  }

  /// The frame's bytes, length prefix included.
  public func encode(_ frame: DeviceFrame) throws(FrameError) -> [UInt8] {
    let identifier = Array(frame.identifier.utf8)
    guard identifier.count <= Self.maximumIdentifierBytes else {
      throw .malformed("the identifier is \(identifier.count) bytes; at most \(Self.maximumIdentifierBytes)")
    }
    let length = Self.headerBytes + identifier.count + frame.payload.count
    var writer = try frameWriter(length: length)
    writer.append(frame.kind.rawValue)
    writer.append(frame.sender.code)
    writer.append(frame.flags.rawValue)
    writer.append(UInt16(identifier.count))
    writer.append(frame.sequence)
    writer.append(frame.transferID)
    writer.append(UInt64(bitPattern: frame.time))
    writer.append(UInt32(frame.payload.count))
    writer.append(contentsOf: identifier)
    writer.append(contentsOf: frame.payload)
    return writer.bytes
  }

  /// The frame whose body (after the length prefix) is `length` bytes at `offset` in `bytes`.
  public func decodeBody(_ bytes: [UInt8], offset: Int, length: Int) throws(FrameError) -> DeviceFrame {
    var reader = ByteReader(bytes, offset: offset)
    try Self.readMagicAndVersion(&reader, what: "frame")
    let kindCode = try reader.readByte()
    guard let kind = DeviceFrame.Kind(rawValue: kindCode) else {
      throw .malformed("unknown kind \(kindCode)")
    }
    let roleCode = try reader.readByte()
    guard let sender = DeviceRole(code: roleCode) else { throw .malformed("unknown sender role \(roleCode)") }
    let flags = DeviceFrame.Flags(rawValue: try reader.readByte())
    let identifierLength = Int(try reader.readUInt16())
    let sequence = try reader.readUInt64()
    let transferID = try reader.readUInt64()
    let time = Int64(bitPattern: try reader.readUInt64())
    let payloadLength = Int(try reader.readUInt32())
    guard identifierLength <= Self.maximumIdentifierBytes else {
      throw .malformed("the identifier is \(identifierLength) bytes; at most \(Self.maximumIdentifierBytes)")
    }
    guard Self.headerBytes + identifierLength + payloadLength == length else {
      throw .malformed(
        "its lengths (\(identifierLength) + \(payloadLength)) disagree with the frame's (\(length))")
    }
    let identifier = try reader.readText(identifierLength, what: "identifier")
    guard !identifier.utf8.contains(0) else { throw .malformed("the identifier contains a NUL character") }
    let payload = try reader.readBytes(payloadLength)
    return DeviceFrame(
      kind: kind, identifier: identifier, transferID: transferID, sequence: sequence, sender: sender,
      time: time,
      flags: flags, payload: payload)
  }
}
