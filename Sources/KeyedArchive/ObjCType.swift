/// An Objective-C type encoding (`@encode`), parsed: the grammar Apple documents in "Type
/// Encodings", with the sizes and alignments of the 64-bit Apple ABI (`l` and `L` are 32 bits).
indirect enum ObjCType: Hashable {
  case char, unsignedChar, short, unsignedShort, int, unsignedInt, long, unsignedLong
  case longLong, unsignedLongLong, float, double, bool
  case cString, object, classObject, selector
  /// `^type`, `?` (unknown, such as a function pointer).
  case pointer
  /// `v`: nothing (a member of no size; mostly seen as `^v`).
  case void
  case array(count: Int, element: ObjCType)
  case structure(name: String?, fields: [ObjCType], fieldNames: [String]?)
  case union(name: String?, fields: [ObjCType])

  /// The largest array count and member count accepted, and the deepest nesting: beyond them the
  /// encoding is shown, not decoded.
  static let maximumCount = 1 << 16
  static let maximumNesting = 32

  /// Parses a whole encoding; `nil` when it is not one well-formed type.
  init?(_ encoding: String) {
    var parser = Parser(bytes: Array(encoding.utf8))
    guard let type = parser.type(depth: 0), parser.index == parser.bytes.count,
      type.nodeCount <= Self.maximumCount
    else { return nil }
    self = type
  }

  /// How many values decoding would produce, counting arrays and structs themselves, saturating
  /// at `Int.max`: an encoding whose count exceeds ``maximumCount`` is shown, not decoded, so
  /// decoding (and every size computed here) stays small.
  var nodeCount: Int {
    switch self {
    case .array(let count, let element):
      let (product, overflow) = count.multipliedReportingOverflow(by: element.nodeCount)
      return overflow || product == Int.max ? Int.max : product + 1
    case .structure(_, let fields, _), .union(_, let fields):
      var total = 1
      for field in fields {
        let (sum, overflow) = total.addingReportingOverflow(field.nodeCount)
        if overflow { return Int.max }
        total = sum
      }
      return total
    default: return 1
    }
  }

  var size: Int {
    switch self {
    case .void: return 0
    case .char, .unsignedChar, .bool: return 1
    case .short, .unsignedShort: return 2
    case .int, .unsignedInt, .long, .unsignedLong, .float: return 4
    case .longLong, .unsignedLongLong, .double, .cString, .object, .classObject, .selector, .pointer: return 8
    case .array(let count, let element): return count * element.size
    case .structure(_, let fields, _):
      var offset = 0
      for field in fields { offset = Self.aligned(offset, field.alignment) + field.size }
      return Self.aligned(offset, alignment)
    case .union(_, let fields): return Self.aligned(fields.map(\.size).max() ?? 0, alignment)
    }
  }

  var alignment: Int {
    switch self {
    case .void: return 1
    case .array(_, let element): return element.alignment
    case .structure(_, let fields, _), .union(_, let fields): return fields.map(\.alignment).max() ?? 1
    default: return size
    }
  }

  static func aligned(_ offset: Int, _ alignment: Int) -> Int {
    alignment <= 1 ? offset : (offset + alignment - 1) / alignment * alignment
  }

  /// The one-character code of a scalar type, as `_NSKeyedCoderOldStyleArray` archives it in
  /// `NS.type`.
  init?(code: Int64) {
    guard let scalar = Unicode.Scalar(UInt32(truncatingIfNeeded: code)), code > 0, code < 128,
      let type = ObjCType(String(Character(scalar))), type.isScalar
    else { return nil }
    self = type
  }

  var isScalar: Bool {
    switch self {
    case .array, .structure, .union: return false
    default: return true
    }
  }

  /// Reads the value from bytes packed as in memory (little-endian, natural alignment), as
  /// `NSValue` holds them; `nil` when the bytes are too few.
  func read(_ bytes: [UInt8], at offset: Int) -> TypedElement? {
    guard offset >= 0, size <= bytes.count - offset else { return nil }
    func integer(_ width: Int) -> UInt64 {
      var value: UInt64 = 0
      for index in (0..<width).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
      return value
    }
    switch self {
    case .char: return .signed(Int64(Int8(truncatingIfNeeded: integer(1))))
    case .short: return .signed(Int64(Int16(truncatingIfNeeded: integer(2))))
    case .int, .long: return .signed(Int64(Int32(truncatingIfNeeded: integer(4))))
    case .longLong: return .signed(Int64(bitPattern: integer(8)))
    case .unsignedChar: return .unsigned(integer(1))
    case .unsignedShort: return .unsigned(integer(2))
    case .unsignedInt, .unsignedLong: return .unsigned(integer(4))
    case .unsignedLongLong: return .unsigned(integer(8))
    case .float: return .real(Double(Float(bitPattern: UInt32(truncatingIfNeeded: integer(4)))))
    case .double: return .real(Double(bitPattern: integer(8)))
    case .bool: return .boolean(integer(1) != 0)
    case .cString, .object, .classObject, .selector, .pointer: return .pointer(integer(8))
    case .array(let count, let element):
      var elements = [TypedElement]()
      elements.reserveCapacity(count)
      for index in 0..<count {
        guard let value = element.read(bytes, at: offset + index * element.size) else { return nil }
        elements.append(value)
      }
      return .array(elements)
    case .structure(let name, let fields, let names):
      var values = [TypedElement]()
      var position = offset
      for field in fields {
        position = offset + Self.aligned(position - offset, field.alignment)
        guard let value = field.read(bytes, at: position) else { return nil }
        values.append(value)
        position += field.size
      }
      return .structure(name: name, fields: values, fieldNames: names)
    case .union:
      return .opaque(encoding: "union", bytes: Array(bytes[offset..<offset + size]))
    case .void:
      return .opaque(encoding: "void", bytes: [])
    }
  }

  private struct Parser {
    let bytes: [UInt8]
    var index = 0

    mutating func type(depth: Int) -> ObjCType? {
      guard depth <= ObjCType.maximumNesting else { return nil }
      // Qualifiers: const, in, inout, out, bycopy, byref, oneway, atomic.
      while index < bytes.count, "rnNoORVA".utf8.contains(bytes[index]) { index += 1 }
      guard index < bytes.count else { return nil }
      let code = bytes[index]
      index += 1
      switch code {
      case UInt8(ascii: "c"): return .char
      case UInt8(ascii: "C"): return .unsignedChar
      case UInt8(ascii: "s"): return .short
      case UInt8(ascii: "S"): return .unsignedShort
      case UInt8(ascii: "i"): return .int
      case UInt8(ascii: "I"): return .unsignedInt
      case UInt8(ascii: "l"): return .long
      case UInt8(ascii: "L"): return .unsignedLong
      case UInt8(ascii: "q"): return .longLong
      case UInt8(ascii: "Q"): return .unsignedLongLong
      case UInt8(ascii: "f"): return .float
      case UInt8(ascii: "d"): return .double
      case UInt8(ascii: "B"): return .bool
      case UInt8(ascii: "v"): return .void
      case UInt8(ascii: "*"): return .cString
      case UInt8(ascii: "#"): return .classObject
      case UInt8(ascii: ":"): return .selector
      case UInt8(ascii: "?"): return .pointer
      case UInt8(ascii: "@"):
        // `@"ClassName"` names the class; `@?` is a block.
        if index < bytes.count, bytes[index] == UInt8(ascii: "?") {
          index += 1
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "\""), let end = closingQuote() {
          index = end + 1
        }
        return .object
      case UInt8(ascii: "^"):
        guard type(depth: depth + 1) != nil else { return nil }
        return .pointer
      case UInt8(ascii: "["):
        var count = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
          count = count * 10 + Int(bytes[index] - 0x30)
          digits += 1
          index += 1
          guard count <= ObjCType.maximumCount else { return nil }
        }
        guard digits > 0, let element = type(depth: depth + 1), index < bytes.count,
          bytes[index] == UInt8(ascii: "]")
        else { return nil }
        index += 1
        return .array(count: count, element: element)
      case UInt8(ascii: "{"), UInt8(ascii: "("):
        let close = code == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: ")")
        let nameStart = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "="), bytes[index] != close { index += 1 }
        guard index < bytes.count else { return nil }
        let rawName = String(decoding: bytes[nameStart..<index], as: UTF8.self)
        let name: String? = rawName.isEmpty || rawName == "?" ? nil : rawName
        var fields = [ObjCType]()
        var names = [String]()
        if bytes[index] == UInt8(ascii: "=") {
          index += 1
          while index < bytes.count, bytes[index] != close {
            if bytes[index] == UInt8(ascii: "\"") {
              guard let end = closingQuote() else { return nil }
              names.append(String(decoding: bytes[(index + 1)..<end], as: UTF8.self))
              index = end + 1
            }
            guard let field = type(depth: depth + 1), fields.count < ObjCType.maximumCount else { return nil }
            fields.append(field)
          }
          guard index < bytes.count else { return nil }
        }
        index += 1
        if code == UInt8(ascii: "(") { return .union(name: name, fields: fields) }
        return .structure(name: name, fields: fields, fieldNames: names.count == fields.count ? names : nil)
      default:
        return nil
      }
    }

    private func closingQuote() -> Int? {
      var end = index + 1
      while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += 1 }
      return end < bytes.count ? end : nil
    }
  }
}
