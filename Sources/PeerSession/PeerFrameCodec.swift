import DeviceSession

/// The wire form of a ``PeerFrame``: a length prefix, a fixed header, the source's name, the
/// text, the payload.
///
/// ```
/// u32 length of what follows          (big-endian, at most maximumFrameBytes)
/// "WP" u8 version=1 u8 kind u8 flags u8 name-length u16 text-length
/// u64 source-id  u64 destination-id  u64 sequence  u64 value  u32 payload-length
/// source name (UTF-8)  text (UTF-8)  payload
/// ```
/// Lists inside a payload (members, departures, discovery info) are `u16 count` then their
/// items, each length-prefixed; see ``encodeIdentities(_:)`` and ``encodeInfo(_:)``. Every
/// length is checked against what holds it before anything is allocated, so an oversized,
/// truncated or garbage frame is an error, never a crash or a huge allocation.
public struct PeerFrameCodec: LengthPrefixedCodec {
  /// The largest frame accepted by default: 16 MiB of data and its header.
  public static let defaultMaximumFrameBytes = (16 << 20) + 1024
  /// The longest text (a service type or a resource name), in UTF-8 bytes.
  public static let maximumTextBytes = 255
  public static let headerBytes = 44
  public static let magic: (UInt8, UInt8) = (UInt8(ascii: "W"), UInt8(ascii: "P"))
  public static let version: UInt8 = 1

  /// The largest frame (what follows the length prefix), in bytes.
  public var maximumFrameBytes: Int

  public init(maximumFrameBytes: Int = PeerFrameCodec.defaultMaximumFrameBytes) {
    self.maximumFrameBytes = maximumFrameBytes
  }

  /// The frame's bytes, length prefix included.
  public func encode(_ frame: PeerFrame) throws(PeerFrameError) -> [UInt8] {
    let name = frame.source.name.text.utf8
    let text = frame.text.utf8
    guard text.count <= Self.maximumTextBytes else {
      throw .malformed("the text is \(text.count) bytes; at most \(Self.maximumTextBytes)")
    }
    let length = Self.headerBytes + name.count + text.count + frame.payload.count
    var writer = try frameWriter(length: length)
    writer.append(frame.kind.rawValue)
    writer.append(frame.flags.rawValue)
    writer.append(UInt8(name.count))
    writer.append(UInt16(text.count))
    writer.append(frame.source.id)
    writer.append(frame.destination)
    writer.append(frame.sequence)
    writer.append(frame.value)
    writer.append(UInt32(frame.payload.count))
    writer.append(contentsOf: name)
    writer.append(contentsOf: text)
    writer.append(contentsOf: frame.payload)
    return writer.bytes
  }

  /// The frame whose body (after the length prefix) is `length` bytes at `offset` in `bytes`.
  public func decodeBody(_ bytes: [UInt8], offset: Int, length: Int) throws(PeerFrameError) -> PeerFrame {
    do throws(FrameError) {
      var reader = ByteReader(bytes, offset: offset)
      try Self.readMagicAndVersion(&reader, what: "peer frame")
      let kindCode = try reader.readByte()
      guard let kind = PeerFrame.Kind(rawValue: kindCode) else {
        throw .malformed("unknown kind \(kindCode)")
      }
      let flags = PeerFrame.Flags(rawValue: try reader.readByte())
      let nameLength = Int(try reader.readByte())
      let textLength = Int(try reader.readUInt16())
      let sourceID = try reader.readUInt64()
      let destination = try reader.readUInt64()
      let sequence = try reader.readUInt64()
      let value = try reader.readUInt64()
      let payloadLength = Int(try reader.readUInt32())
      guard textLength <= Self.maximumTextBytes else {
        throw .malformed("the text is \(textLength) bytes; at most \(Self.maximumTextBytes)")
      }
      guard Self.headerBytes + nameLength + textLength + payloadLength == length else {
        throw .malformed(
          "its lengths (\(nameLength) + \(textLength) + \(payloadLength)) disagree with the frame's (\(length))"
        )
      }
      let source = try Self.identity(id: sourceID, name: try reader.readText(nameLength, what: "source name"))
      let text = try reader.readText(textLength, what: "text")
      let payload = try reader.readBytes(payloadLength)
      return PeerFrame(
        kind: kind, flags: flags, source: source, destination: destination, sequence: sequence, value: value,
        text: text, payload: payload)
    } catch {
      throw PeerFrameError(error)
    }
  }

  private static func identity(id: UInt64, name text: String) throws(FrameError) -> PeerIdentity {
    let name: PeerName
    do throws(PeerNameError) { name = try PeerName(text) } catch { throw .malformed(error.reason) }
    guard let identity = PeerIdentity(name: name, id: id) else { throw .malformed("a peer id is 0") }
    return identity
  }

  // MARK: Lists in payloads

  /// `u16 count`, then per identity `u64 id u8 name-length name`.
  public static func encodeIdentities(_ identities: [PeerIdentity]) -> [UInt8] {
    var writer = ByteWriter(capacity: 2 + identities.count * 16)
    writer.append(UInt16(min(identities.count, Int(UInt16.max))))
    for identity in identities.prefix(Int(UInt16.max)) {
      writer.append(identity.id)
      writer.append(UInt8(identity.name.text.utf8.count))
      writer.append(contentsOf: identity.name.text.utf8)
    }
    return writer.bytes
  }

  /// The identities ``encodeIdentities(_:)`` wrote; anything else is refused.
  public static func decodeIdentities(_ payload: [UInt8]) throws(PeerFrameError) -> [PeerIdentity] {
    do throws(FrameError) {
      var reader = ByteReader(payload)
      let count = Int(try reader.readUInt16())
      // Each identity takes at least 10 bytes: a count beyond what is there is refused unallocated.
      guard count * 10 <= reader.remaining else {
        throw .truncated(needed: count * 10, available: reader.remaining)
      }
      var identities: [PeerIdentity] = []
      identities.reserveCapacity(count)
      for _ in 0..<count {
        let id = try reader.readUInt64()
        let length = Int(try reader.readByte())
        identities.append(try identity(id: id, name: try reader.readText(length, what: "member name")))
      }
      guard reader.remaining == 0 else { throw .malformed("\(reader.remaining) bytes follow the list") }
      return identities
    } catch {
      throw PeerFrameError(error)
    }
  }

  /// `u16 count`, then per entry in key order `u16 key-length key u16 value-length value`.
  public static func encodeInfo(_ info: DiscoveryInfo) -> [UInt8] {
    var writer = ByteWriter()
    let entries = info.sorted
    writer.append(UInt16(entries.count))
    for (key, value) in entries {
      writer.append(UInt16(key.utf8.count))
      writer.append(contentsOf: key.utf8)
      writer.append(UInt16(value.utf8.count))
      writer.append(contentsOf: value.utf8)
    }
    return writer.bytes
  }

  /// The discovery info ``encodeInfo(_:)`` wrote, checked by ``DiscoveryInfo``'s rules.
  public static func decodeInfo(_ payload: [UInt8]) throws(PeerFrameError) -> DiscoveryInfo {
    var entries: [String: String] = [:]
    do throws(FrameError) {
      var reader = ByteReader(payload)
      let count = Int(try reader.readUInt16())
      guard count * 4 <= reader.remaining else {
        throw .truncated(needed: count * 4, available: reader.remaining)
      }
      for _ in 0..<count {
        let key = try reader.readText(Int(try reader.readUInt16()), what: "discovery info key")
        let value = try reader.readText(Int(try reader.readUInt16()), what: "discovery info value")
        guard entries.updateValue(value, forKey: key) == nil else {
          throw .malformed("the discovery info repeats a key")
        }
      }
      guard reader.remaining == 0 else { throw .malformed("\(reader.remaining) bytes follow the list") }
    } catch {
      throw PeerFrameError(error)
    }
    do throws(DiscoveryInfoError) { return try DiscoveryInfo(entries) } catch {
      throw .malformed(error.description)
    }
  }
}
