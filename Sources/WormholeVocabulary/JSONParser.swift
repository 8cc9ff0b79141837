import ArchivedValues

/// A strict JSON reader (RFC 8259) into ``ArchivedValue``, used for messages typed on the command
/// line and for traffic-journal lines.
///
/// Objects become dictionaries with string keys in document order (a repeated key keeps its
/// first position and its last value, unless ``refusesDuplicateKeys``), integers that fit 64 bits
/// become integers and all other numbers reals, and `null` becomes `NSNull`. Unlike Foundation's
/// `JSONSerialization`, `1` and `true` stay distinct.
public struct JSONParser {
  /// The deepest nesting accepted.
  public var maximumDepth: Int
  /// Whether an object that names a key twice is refused (at any depth), rather than keeping the
  /// last value: for hostile input, where a filter that reads the first would be fooled.
  public var refusesDuplicateKeys: Bool

  public init(maximumDepth: Int = 512, refusesDuplicateKeys: Bool = false) {
    self.maximumDepth = maximumDepth
    self.refusesDuplicateKeys = refusesDuplicateKeys
  }

  /// The value of the JSON text `text`.
  public func parse(_ text: String) throws(JSONParseError) -> ArchivedValue {
    var text = text
    let result = text.withUTF8 { bytes in
      Result { () throws(JSONParseError) -> ArchivedValue in try parse(bytes) }
    }
    return try result.get()
  }

  /// The value of the JSON text in `bytes` (UTF-8).
  ///
  /// Parsing does not recurse: open arrays and objects are kept on a stack of its own, up to
  /// ``maximumDepth`` (512 by default), so any thread can parse any input.
  public func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> ArchivedValue {
    try parse(bytes, limit: maximumDepth)
  }

  private func parse(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) throws(JSONParseError) -> ArchivedValue
  {
    var reader = Reader(bytes: bytes, maximumDepth: limit, refusesDuplicateKeys: refusesDuplicateKeys)
    reader.skipSpace()
    let value = try reader.value(depth: 0)
    reader.skipSpace()
    guard reader.position == bytes.count else { throw reader.error("unexpected text after the value") }
    return value
  }
}

/// Why a text is not JSON, with the byte offset where reading stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
  public var reason: String
  public var offset: Int

  public var description: String { "not valid JSON at byte \(offset): \(reason)" }
}

private struct Reader {
  let bytes: UnsafeBufferPointer<UInt8>
  let maximumDepth: Int
  let refusesDuplicateKeys: Bool
  var position = 0

  init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, refusesDuplicateKeys: Bool) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
    self.refusesDuplicateKeys = refusesDuplicateKeys
  }

  func error(_ reason: String) -> JSONParseError { JSONParseError(reason: reason, offset: position) }

  /// At most 64 characters of a key from the input, as an escaped JSON string literal.
  static func excerpt(_ key: String) -> String {
    key.count > 64 ? JSONText.string(String(key.prefix(64))) + "…" : JSONText.string(key)
  }

  var current: UInt8? { position < bytes.count ? bytes[position] : nil }

  mutating func skipSpace() {
    while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
  }

  mutating func expect(_ literal: StaticString, _ value: ArchivedValue) throws(JSONParseError)
    -> ArchivedValue
  {
    let count = literal.utf8CodeUnitCount
    guard position + count <= bytes.count else { throw error("unexpected end of text") }
    for index in 0..<count where bytes[position + index] != literal.utf8Start[index] {
      throw error("unknown word")
    }
    position += count
    return value
  }

  /// The containers being read, innermost last: their kinds, and the elements and entries read
  /// so far (kept in arrays of their own so that appending never copies).
  private enum Container { case array, object }

  /// Reads one value without recursing: containers being read are kept on explicit stacks, so any
  /// nesting up to ``maximumDepth`` parses on any thread's stack.
  mutating func value(depth: Int) throws(JSONParseError) -> ArchivedValue {
    var containers: [Container] = []
    var arrays: [[ArchivedValue]] = []
    // An object's entries, where each key stands among them, and the key whose value is being
    // read: three stacks, not one of tuples, since changing a dictionary inside a tuple inside an
    // array copies the dictionary in an unoptimized build (`swift run`'s), making an object of n
    // keys cost n² (60,000 keys: half a minute).
    var objectEntries: [[ArchivedEntry]] = []
    var objectPositions: [[String: Int]] = []
    var objectKeys: [String] = []
    while true {
      guard depth + containers.count <= maximumDepth else {
        throw error("nested more than \(maximumDepth) levels deep")
      }
      guard let byte = current else { throw error("unexpected end of text") }
      var finished: ArchivedValue
      switch byte {
      case UInt8(ascii: "{"):
        guard opensNonEmpty(closing: UInt8(ascii: "}")) else {
          finished = .dictionary([])
          break
        }
        objectKeys.append(try key())
        objectEntries.append([])
        objectPositions.append([:])
        containers.append(.object)
        continue
      case UInt8(ascii: "["):
        guard opensNonEmpty(closing: UInt8(ascii: "]")) else {
          finished = .array([])
          break
        }
        arrays.append([])
        containers.append(.array)
        continue
      case UInt8(ascii: "\""): finished = .string(try string())
      case UInt8(ascii: "t"): finished = try expect("true", .boolean(true))
      case UInt8(ascii: "f"): finished = try expect("false", .boolean(false))
      case UInt8(ascii: "n"): finished = try expect("null", .null)
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): finished = try number()
      default: throw error("unexpected character")
      }
      // Hand the value to the containers around it, closing each one that ends here.
      closing: while let container = containers.last {
        skipSpace()
        switch container {
        case .array:
          arrays[arrays.count - 1].append(finished)
          guard let separator = current else { throw error("unexpected end of text in an array") }
          position += 1
          if separator == UInt8(ascii: "]") {
            finished = .array(arrays.removeLast())
            containers.removeLast()
            continue closing
          }
          guard separator == UInt8(ascii: ",") else { throw error("expected ',' or ']'") }
          skipSpace()
        case .object:
          let last = objectKeys.count - 1
          let name = objectKeys[last]
          if let existing = objectPositions[last][name] {
            if refusesDuplicateKeys {
              throw error("the key \(Self.excerpt(name)) appears twice in an object")
            }
            objectEntries[last][existing].value = finished
          } else {
            objectPositions[last][name] = objectEntries[last].count
            objectEntries[last].append(ArchivedEntry(key: .string(name), value: finished))
          }
          guard let separator = current else { throw error("unexpected end of text in an object") }
          position += 1
          if separator == UInt8(ascii: "}") {
            finished = .dictionary(objectEntries.removeLast())
            objectPositions.removeLast()
            objectKeys.removeLast()
            containers.removeLast()
            continue closing
          }
          guard separator == UInt8(ascii: ",") else { throw error("expected ',' or '}'") }
          objectKeys[last] = try key()
        }
        break closing
      }
      if containers.isEmpty { return finished }
    }
  }

  /// Steps over a container's opening bracket and the space after it: `false`, with the closing
  /// bracket stepped over too, when the container is empty.
  mutating func opensNonEmpty(closing: UInt8) -> Bool {
    position += 1
    skipSpace()
    guard current == closing else { return true }
    position += 1
    return false
  }

  /// An object's next key and its `:`, leaving the position at its value.
  mutating func key() throws(JSONParseError) -> String {
    skipSpace()
    guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
    let key = try string()
    skipSpace()
    guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
    position += 1
    skipSpace()
    return key
  }

  mutating func string() throws(JSONParseError) -> String {
    position += 1
    let start = position
    // Fast path: no escapes.
    while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
      guard byte >= 0x20 else { throw error("control character in a string") }
      position += 1
    }
    guard let stop = current else { throw error("unterminated string") }
    var scalars = String.UnicodeScalarView()
    guard
      let prefix = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    else { throw error("invalid UTF-8 in a string") }
    if stop == UInt8(ascii: "\"") {
      position += 1
      return prefix
    }
    scalars.append(contentsOf: prefix.unicodeScalars)
    while true {
      guard let byte = current else { throw error("unterminated string") }
      if byte == UInt8(ascii: "\"") {
        position += 1
        return String(scalars)
      }
      if byte == UInt8(ascii: "\\") {
        position += 1
        guard let escape = current else { throw error("unterminated escape") }
        position += 1
        switch escape {
        case UInt8(ascii: "\""): scalars.append("\"")
        case UInt8(ascii: "\\"): scalars.append("\\")
        case UInt8(ascii: "/"): scalars.append("/")
        case UInt8(ascii: "b"): scalars.append("\u{08}")
        case UInt8(ascii: "f"): scalars.append("\u{0C}")
        case UInt8(ascii: "n"): scalars.append("\n")
        case UInt8(ascii: "r"): scalars.append("\r")
        case UInt8(ascii: "t"): scalars.append("\t")
        case UInt8(ascii: "u"): scalars.append(try unicodeEscape())
        default: throw error("unknown escape")
        }
        continue
      }
      guard byte >= 0x20 else { throw error("control character in a string") }
      // Copy one UTF-8 sequence.
      let sequenceStart = position
      position += 1
      while let next = current, next & 0xC0 == 0x80 { position += 1 }
      guard
        let piece = String(
          validating: UnsafeBufferPointer(rebasing: bytes[sequenceStart..<position]), as: UTF8.self)
      else { throw error("invalid UTF-8 in a string") }
      scalars.append(contentsOf: piece.unicodeScalars)
    }
  }

  mutating func hexQuad() throws(JSONParseError) -> UInt32 {
    guard position + 4 <= bytes.count else { throw error("short \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[position]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default: throw error("bad hex digit in \\u escape")
      }
      value = value * 16 + digit
      position += 1
    }
    return value
  }

  mutating func unicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
    let first = try hexQuad()
    if (0xD800...0xDBFF).contains(first) {
      guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"),
        bytes[position + 1] == UInt8(ascii: "u")
      else { throw error("unpaired UTF-16 surrogate") }
      position += 2
      let second = try hexQuad()
      guard (0xDC00...0xDFFF).contains(second) else { throw error("unpaired UTF-16 surrogate") }
      let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
      guard let scalar = Unicode.Scalar(combined) else { throw error("invalid code point") }
      return scalar
    }
    guard let scalar = Unicode.Scalar(first) else { throw error("unpaired UTF-16 surrogate") }
    return scalar
  }

  mutating func number() throws(JSONParseError) -> ArchivedValue {
    let start = position
    var isInteger = true
    if current == UInt8(ascii: "-") { position += 1 }
    guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
      throw error("expected a digit")
    }
    if first == UInt8(ascii: "0") {
      position += 1
    } else {
      skipDigits()
    }
    if current == UInt8(ascii: ".") {
      isInteger = false
      position += 1
      guard requireDigits() else { throw error("expected a digit after '.'") }
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      isInteger = false
      position += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
      guard requireDigits() else { throw error("expected a digit in the exponent") }
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    if isInteger {
      if let value = Int64(text) { return .integer(value) }
      if let value = UInt64(text) { return .unsignedInteger(value) }
    }
    guard let value = Double(text), value.isFinite else { throw error("number out of range") }
    return .real(value)
  }

  mutating func skipDigits() {
    while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
  }

  mutating func requireDigits() -> Bool {
    let start = position
    skipDigits()
    return position > start
  }
}

/// Writes JSON text: strings escaped as RFC 8259 requires and as ``DisplayText`` escapes every
/// JSON output (what a terminal would act on, and invisible characters that shape nothing, as
/// `\uXXXX`), so that JSON piped to a terminal is as safe as text; it reads back the same.
public enum JSONText {
  /// `text` as a JSON string literal.
  public static func string(_ text: String) -> String { DisplayText.jsonString(text) }

  /// Appends `text` as a JSON string literal in UTF-8.
  public static func appendString(_ text: String, to out: inout [UInt8]) {
    DisplayText.appendJSONString(text, to: &out)
  }

  /// `text` as a JSON string literal, or `null` when there is none.
  public static func string(orNull text: String?) -> String {
    guard let text else { return "null" }
    return string(text)
  }

  /// A file name as a JSON string literal: exact when it is UTF-8, its lossy text otherwise
  /// (``nameBytes(_:)`` then gives its bytes).
  public static func name(_ name: FileName) -> String { string(name.string ?? name.lossyText) }

  /// `null` for a file name that is valid UTF-8, else a JSON string of its bytes in lowercase
  /// hexadecimal: what a program needs to name a file whose name is not text.
  public static func nameBytes(_ name: FileName) -> String {
    guard !name.isText else { return "null" }
    let digits = Array("0123456789abcdef".utf8)
    var hex: [UInt8] = [UInt8(ascii: "\"")]
    for byte in name.bytes {
      hex.append(digits[Int(byte >> 4)])
      hex.append(digits[Int(byte & 0xf)])
    }
    hex.append(UInt8(ascii: "\""))
    return String(decoding: hex, as: UTF8.self)
  }
}
