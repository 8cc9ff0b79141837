/// An application context: MMWormhole's one dictionary of identifiers to archives, with the
/// version its sender gave it (each update that is sent takes the next version).
public struct SessionContext: Sendable, Equatable {
  /// Archive bytes by message identifier.
  public var entries: [String: [UInt8]]
  /// 0 for the empty context nobody sent.
  public var version: UInt64

  public init(entries: [String: [UInt8]] = [:], version: UInt64 = 0) {
    self.entries = entries
    self.version = version
  }

  /// The identifiers in byte order.
  public var identifiers: [String] {
    entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  /// The entries as bytes: `u32 count`, then per identifier in byte order `u16 length`, the
  /// identifier, `u32 length`, the archive. A frame's payload and the context files use it.
  public func encodedEntries() -> [UInt8] {
    var writer = ByteWriter()
    writer.append(UInt32(entries.count))
    for identifier in identifiers {
      let name = Array(identifier.utf8)
      let archive = entries[identifier] ?? []
      writer.append(UInt16(truncatingIfNeeded: name.count))
      writer.append(contentsOf: name)
      writer.append(UInt32(truncatingIfNeeded: archive.count))
      writer.append(contentsOf: archive)
    }
    return writer.bytes
  }

  /// The entries ``encodedEntries()`` wrote; anything else is refused.
  public static func decodeEntries(_ bytes: [UInt8]) throws(FrameError) -> [String: [UInt8]] {
    var reader = ByteReader(bytes)
    let count = Int(try reader.readUInt32())
    // Each entry takes at least 6 bytes: a count that cannot fit is refused before looping.
    guard count <= reader.remaining / 6 else { throw .malformed("a context announces \(count) entries") }
    var entries: [String: [UInt8]] = [:]
    for _ in 0..<count {
      let identifier = try reader.readText(Int(try reader.readUInt16()), what: "context identifier")
      entries[identifier] = try reader.readBytes(Int(try reader.readUInt32()))
    }
    guard reader.remaining == 0 else { throw .malformed("\(reader.remaining) bytes follow the context") }
    return entries
  }
}
