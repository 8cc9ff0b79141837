/// One request or answer on a peer's control socket: a list of byte fields, the first the
/// command (`invite`, `answer`, `send`, `send-resource`, `disconnect`, `cancel`, `status`) or the answer's status
/// (`ok`, or `error` with the exit code, 2 or 3, and the message).
///
/// ```
/// u32 length of what follows (big-endian, at most maximumBytes)
/// u16 field count, then each field: u32 length, bytes
/// ```
public struct PeerControlMessage: Sendable, Equatable {
  /// The largest message: data of 16 MiB and its fields.
  public static let maximumBytes = (16 << 20) + 4096

  public var fields: [[UInt8]]

  public init(_ fields: [[UInt8]]) { self.fields = fields }

  public init(text fields: [String]) { self.fields = fields.map { Array($0.utf8) } }

  /// Field `index` as text (invalid UTF-8 repaired), or `""` when there is none.
  public func text(_ index: Int) -> String {
    index < fields.count ? String(decoding: fields[index], as: UTF8.self) : ""
  }

  /// The bytes on the wire.
  public var encoded: [UInt8] {
    var body: [UInt8] = []
    body.append(UInt8(fields.count >> 8 & 0xFF))
    body.append(UInt8(fields.count & 0xFF))
    for field in fields {
      body.append(contentsOf: Self.bigEndian(UInt32(field.count)))
      body.append(contentsOf: field)
    }
    return Self.bigEndian(UInt32(body.count)) + body
  }

  private static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }

  private static func number(_ bytes: ArraySlice<UInt8>) -> Int {
    bytes.reduce(0) { $0 << 8 | Int($1) }
  }

  /// The length a message's first four bytes announce, or `nil` when it is over the limit.
  static func announcedLength(_ prefix: ArraySlice<UInt8>) -> Int? {
    let length = number(prefix)
    return length <= maximumBytes ? length : nil
  }

  /// The message in `body` (what follows the length), or `nil` when it does not hold one.
  init?(body: ArraySlice<UInt8>) {
    guard body.count >= 2 else { return nil }
    let count = Self.number(body.prefix(2))
    var offset = body.startIndex + 2
    var fields: [[UInt8]] = []
    for _ in 0..<count {
      guard body.endIndex - offset >= 4 else { return nil }
      let length = Self.number(body[offset..<(offset + 4)])
      offset += 4
      guard body.endIndex - offset >= length else { return nil }
      fields.append(Array(body[offset..<(offset + length)]))
      offset += length
    }
    guard offset == body.endIndex else { return nil }
    self.fields = fields
  }
}
