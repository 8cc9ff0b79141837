import ArchivedValues
import WormholeVocabulary

/// The recent traffic of one machine, as its bridge keeps it retained on
/// ``BridgeTopics/backlog(machine:)``, so that a dashboard that starts late shows recent traffic
/// at once:
///
/// ```
/// {"version":1,"entries":[ENTRY,...]}
/// ```
///
/// each ENTRY the JSON object the traffic topic carries (`dump --json --follow`'s line), oldest
/// first: the newest ``entryLimit`` entries at most, fewer when they would take more than
/// ``byteLimit`` bytes (the oldest are left out).
public enum TrafficBacklog {
  /// The most entries a backlog holds.
  public static let entryLimit = 500
  /// The most bytes a backlog's payload takes.
  public static let byteLimit = 256 << 10

  /// The payload for `lines` (entries' JSON lines, oldest first): the newest of them that fit
  /// ``entryLimit`` and ``byteLimit``.
  public static func payload(_ lines: [String]) -> [UInt8] {
    let opening = Array("{\"version\":\(FleetProtocol.version),\"entries\":[".utf8)
    let closing = Array("]}".utf8)
    var kept: [String] = []
    var size = opening.count + closing.count
    for line in lines.suffix(entryLimit).reversed() {
      let added = line.utf8.count + (kept.isEmpty ? 0 : 1)
      guard size + added <= byteLimit else { break }
      size += added
      kept.append(line)
    }
    var out = opening
    out.reserveCapacity(size)
    for (index, line) in kept.reversed().enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      out += line.utf8
    }
    return out + closing
  }

  /// The entries of a backlog payload, oldest first, each the members of one JSON object
  /// (checked by whoever reads them). Throws when the payload is larger than ``byteLimit``, is
  /// not the object above, or holds more than ``entryLimit`` entries or one that is not an object.
  public static func entries(in payload: [UInt8]) throws(FleetProtocolError) -> [[ArchivedEntry]] {
    guard payload.count <= byteLimit else {
      throw .payloadTooLarge(byteCount: payload.count, limit: byteLimit)
    }
    let value: ArchivedValue
    do {
      value = try payload.withUnsafeBufferPointer { bytes throws(JSONParseError) in
        try JSONParser(maximumDepth: 16).parse(bytes)
      }
    } catch {
      throw .notJSON(reason: error.description)
    }
    guard case .dictionary(let members) = value else { throw .notAnObject }
    let version = members.first { $0.key == .string("version") }?.value
    guard let version else { throw .missingField("version") }
    guard case .integer(FleetProtocol.version) = version else {
      if case .integer(let found) = version { throw .unsupportedVersion(found: String(found)) }
      throw .wrongType(field: "version", expected: "an integer")
    }
    guard let list = members.first(where: { $0.key == .string("entries") })?.value else {
      throw .missingField("entries")
    }
    guard case .array(let items) = list else { throw .wrongType(field: "entries", expected: "an array") }
    guard items.count <= entryLimit else {
      throw .invalidField(field: "entries", reason: "\(items.count) entries, above \(entryLimit)")
    }
    var entries: [[ArchivedEntry]] = []
    entries.reserveCapacity(items.count)
    for item in items {
      guard case .dictionary(let fields) = item else {
        throw .wrongType(field: "entries", expected: "an array of objects")
      }
      entries.append(fields)
    }
    return entries
  }
}
