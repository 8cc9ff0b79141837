import ArchivedValues

/// A name as the file system holds it: bytes, not text.
///
/// Linux file names are byte strings. Two names are the same file only when their bytes are the
/// same, so a `FileName` compares, hashes and sorts by its exact bytes: `é` (U+00E9) and `e`
/// followed by U+0301 are two names here, although Swift's `String` calls them equal. A name
/// that is not valid UTF-8 is kept as it is and shown with its undecodable bytes escaped.
///
/// Used for one directory entry and for whole paths alike. Names that are valid UTF-8 (almost
/// all) are stored as a `String`, so short ones take no allocation.
public struct FileName: Sendable, Hashable, Comparable {
  /// The name's UTF-8 text; or, for a name that is not valid UTF-8 (or starts with NUL, which
  /// no file name can), NUL followed by its bytes in hexadecimal. One `String` either way, so
  /// that a name takes 16 bytes in the model's tables and short ones no allocation.
  private let storage: String

  /// The name whose bytes are `text`'s UTF-8, exactly as written (no normalization).
  public init(_ text: String) {
    storage = text.utf8.first == 0 ? FileName.encoded(Array(text.utf8)) : text
  }

  /// The name made of exactly `bytes`.
  public init(bytes: some Collection<UInt8>) {
    if bytes.first != 0, let text = String(validating: bytes, as: UTF8.self) {
      storage = text
    } else {
      storage = FileName.encoded(Array(bytes))
    }
  }

  private static func encoded(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = [0]
    out.reserveCapacity(1 + bytes.count * 2)
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  private var isEncoded: Bool { storage.utf8.first == 0 }

  /// The name's bytes.
  public var bytes: [UInt8] {
    guard isEncoded else { return Array(storage.utf8) }
    func value(_ digit: UInt8) -> UInt8 {
      digit >= UInt8(ascii: "a") ? digit - UInt8(ascii: "a") + 10 : digit - UInt8(ascii: "0")
    }
    let hex = Array(storage.utf8.dropFirst())
    return stride(from: 0, to: hex.count - 1, by: 2).map { value(hex[$0]) << 4 | value(hex[$0 + 1]) }
  }

  /// The name as text, or `nil` when its bytes are not valid UTF-8.
  public var string: String? { isEncoded ? nil : storage }

  /// Whether the name is valid UTF-8.
  public var isText: Bool { !isEncoded }

  /// The number of bytes.
  public var byteCount: Int { isEncoded ? (storage.utf8.count - 1) / 2 : storage.utf8.count }

  /// Runs `body` over the name's bytes without copying them where possible.
  public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
    if isEncoded { return try bytes.withUnsafeBufferPointer(body) }
    var text = storage
    return try text.withUTF8(body)
  }

  /// The name as text for a person: valid UTF-8 as it is, each undecodable byte as `\x{ff}`.
  /// Not yet escaped for a terminal: pass it through ``DisplayText`` (``displayField`` does).
  public var lossyText: String {
    if let text = string { return text }
    return segments().map { segment in
      switch segment {
      case .text(let text): return text
      case .byte(let byte): return "\\x{" + String(byte, radix: 16) + "}"
      }
    }.joined()
  }

  /// One column of a line for a terminal: plain words as they are, anything else quoted with
  /// controls, separators, bidirectional controls and undecodable bytes escaped. An undecodable
  /// byte shows as `\x{ff}` while a backslash in the name shows as `\\`, so the two never look
  /// alike.
  public var displayField: String {
    if let text = string { return DisplayText.field(text) }
    var out = "\""
    for segment in segments() {
      switch segment {
      case .text(let text): out += DisplayText.quoted(text).dropFirst().dropLast()
      case .byte(let byte): out += "\\x{" + String(byte, radix: 16) + "}"
      }
    }
    return out + "\""
  }

  private enum Segment {
    case text(String)
    case byte(UInt8)
  }

  /// The name as runs of valid UTF-8 and single undecodable bytes.
  private func segments() -> [Segment] {
    var out: [Segment] = []
    var rest = bytes[...]
    while !rest.isEmpty {
      // The longest valid prefix, then one undecodable byte.
      var end = rest.endIndex
      while end > rest.startIndex, String(validating: rest[rest.startIndex..<end], as: UTF8.self) == nil {
        end -= 1
      }
      if end > rest.startIndex {
        out.append(.text(String(decoding: rest[rest.startIndex..<end], as: UTF8.self)))
        rest = rest[end...]
      } else {
        out.append(.byte(rest[rest.startIndex]))
        rest = rest.dropFirst()
      }
    }
    return out
  }

  public static func == (left: FileName, right: FileName) -> Bool {
    // Encoded names start with NUL and text never does, so equal storage is equal bytes.
    let leftBytes = left.storage.utf8
    let rightBytes = right.storage.utf8
    guard leftBytes.count == rightBytes.count else { return false }
    // One comparison of the contiguous UTF-8 (every native string's): the model and the watcher
    // compare names at every dictionary look-up, and the view's iterator costs per byte.
    let compared = leftBytes.withContiguousStorageIfAvailable { leftBuffer in
      rightBytes.withContiguousStorageIfAvailable { rightBuffer in
        FileName.compare(leftBuffer, rightBuffer) == 0
      }
    }
    if let compared, let equal = compared { return equal }
    return leftBytes.elementsEqual(rightBytes)
  }

  /// Byte order of two buffers (`memcmp`'s, without the C library: a pure module), the shorter
  /// first when one starts the other: negative, zero or positive. Eight bytes at a time.
  private static func compare(
    _ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>
  ) -> Int {
    let common = min(left.count, right.count)
    let leftRaw = UnsafeRawBufferPointer(left)
    let rightRaw = UnsafeRawBufferPointer(right)
    var index = 0
    while index + 8 <= common {
      // Read as big-endian, the first byte is the most significant: integer order is byte order.
      let leftWord = UInt64(bigEndian: leftRaw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      let rightWord = UInt64(bigEndian: rightRaw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      if leftWord != rightWord { return leftWord < rightWord ? -1 : 1 }
      index += 8
    }
    while index < common {
      if left[index] != right[index] { return left[index] < right[index] ? -1 : 1 }
      index += 1
    }
    return left.count - right.count
  }

  public func hash(into hasher: inout Hasher) {
    var text = storage
    text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// Byte order, as `memcmp` and `ls` in the C locale sort.
  public static func < (left: FileName, right: FileName) -> Bool {
    if !left.isEncoded && !right.isEncoded {
      let leftBytes = left.storage.utf8
      let rightBytes = right.storage.utf8
      let compared = leftBytes.withContiguousStorageIfAvailable { leftBuffer in
        rightBytes.withContiguousStorageIfAvailable { rightBuffer in
          FileName.compare(leftBuffer, rightBuffer) < 0
        }
      }
      if let compared, let precedes = compared { return precedes }
      return leftBytes.lexicographicallyPrecedes(rightBytes)
    }
    return left.bytes.lexicographicallyPrecedes(right.bytes)
  }

  /// Whether the name ends with `suffix`'s bytes (not grapheme clusters: `x\u{600}.archive`
  /// ends with `.archive` although its last grapheme is `\u{600}.`).
  public func hasSuffix(_ suffix: String) -> Bool {
    withBytes { name in
      let tail = Array(suffix.utf8)
      return name.count >= tail.count && name[(name.count - tail.count)...].elementsEqual(tail)
    }
  }

  /// The name without its last `count` bytes.
  public func droppingLast(_ count: Int) -> FileName {
    withBytes { FileName(bytes: $0.dropLast(count)) }
  }

  /// `self + "/" + name`, for paths.
  public func appending(_ name: FileName) -> FileName {
    FileName(bytes: bytes + [UInt8(ascii: "/")] + name.bytes)
  }
}

extension FileName: CustomStringConvertible {
  /// ``displayField``.
  public var description: String { displayField }
}

extension FileName: ExpressibleByStringLiteral {
  public init(stringLiteral value: String) { self.init(value) }
}
