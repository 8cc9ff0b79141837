import Foundation

/// Writes binary property lists (`bplist00`) in one linear pass over the value tree.
///
/// Equal strings, numbers, dates, data and archive references are stored once (as Apple's writer
/// does), keyed by type as well as value so that `1`, `1.0` and `true` stay distinct. Containers
/// are never uniqued, which keeps hashing off the hot path.
public struct BinaryPropertyListWriter: Sendable {
  /// The deepest nesting accepted; deeper trees throw ``PropertyListWriteError/nestingTooDeep(limit:)``.
  public var maximumDepth: Int

  public init(maximumDepth: Int = 512) {
    self.maximumDepth = maximumDepth
  }

  /// The binary property list for `value`.
  public func data(for value: PropertyListValue) throws(PropertyListWriteError) -> Data {
    Data(try bytes(for: value))
  }

  /// The binary property list for `value`, as bytes.
  public func bytes(for value: PropertyListValue) throws(PropertyListWriteError) -> [UInt8] {
    var flattener = Flattener(maximumDepth: maximumDepth)
    let top = try flattener.add(value, depth: 0)
    return serialize(flattener.objects, top: top)
  }

  private func serialize(_ objects: [FlatObject], top: Int) -> [UInt8] {
    let referenceSize = Self.byteCount(forUnsigned: UInt64(objects.count))
    var out: [UInt8] = []
    out.reserveCapacity(objects.count * 12 + 64)
    out.append(contentsOf: Array("bplist00".utf8))
    var offsets: [Int] = []
    offsets.reserveCapacity(objects.count)
    for object in objects {
      offsets.append(out.count)
      switch object {
      case .encoded(let bytes):
        out.append(contentsOf: bytes)
      case .array(let children):
        Self.appendHeader(0xA0, count: children.count, to: &out)
        for child in children { Self.appendBigEndian(UInt64(child), size: referenceSize, to: &out) }
      case .dictionary(let keys, let values):
        Self.appendHeader(0xD0, count: keys.count, to: &out)
        for key in keys { Self.appendBigEndian(UInt64(key), size: referenceSize, to: &out) }
        for value in values { Self.appendBigEndian(UInt64(value), size: referenceSize, to: &out) }
      }
    }
    let tableOffset = out.count
    let offsetSize = Self.byteCount(forUnsigned: UInt64(tableOffset))
    for offset in offsets { Self.appendBigEndian(UInt64(offset), size: offsetSize, to: &out) }
    out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
    Self.appendBigEndian(UInt64(objects.count), size: 8, to: &out)
    Self.appendBigEndian(UInt64(top), size: 8, to: &out)
    Self.appendBigEndian(UInt64(tableOffset), size: 8, to: &out)
    return out
  }

  static func byteCount(forUnsigned value: UInt64) -> Int {
    if value <= 0xFF { return 1 }
    if value <= 0xFFFF { return 2 }
    if value <= 0xFFFF_FFFF { return 4 }
    return 8
  }

  static func appendBigEndian(_ value: UInt64, size: Int, to out: inout [UInt8]) {
    var shift = (size - 1) * 8
    while shift >= 0 {
      out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
      shift -= 8
    }
  }

  /// A marker byte with the count in its low nibble, or 0xF and an integer object after it.
  static func appendHeader(_ marker: UInt8, count: Int, to out: inout [UInt8]) {
    if count < 15 {
      out.append(marker | UInt8(count))
    } else {
      out.append(marker | 0x0F)
      appendInteger(Int64(count), to: &out)
    }
  }

  static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
    if value < 0 {
      out.append(0x13)
      appendBigEndian(UInt64(bitPattern: value), size: 8, to: &out)
      return
    }
    let size = byteCount(forUnsigned: UInt64(value))
    out.append(0x10 | UInt8(size.trailingZeroBitCount))
    appendBigEndian(UInt64(value), size: size, to: &out)
  }
}

/// Why a value could not be written as a property list.
public enum PropertyListWriteError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The tree nests deeper than the writer's limit.
  case nestingTooDeep(limit: Int)

  public var description: String {
    switch self {
    case .nestingTooDeep(let limit):
      return "the value nests more than \(limit) levels deep; flatten it before passing it"
    }
  }
}

private enum FlatObject {
  case encoded([UInt8])
  case array([Int])
  case dictionary(keys: [Int], values: [Int])
}

/// Scalars uniqued by type and value; a real is keyed by its bit pattern so that 0.0 and -0.0
/// (and NaNs) stay what they were.
private enum ScalarKey: Hashable {
  case string(String)
  case integer(Int64)
  case unsignedInteger(UInt64)
  case real(UInt64)
  case boolean(Bool)
  case date(UInt64)
  case data(Data)
  case uid(UInt64)
}

private struct Flattener {
  let maximumDepth: Int
  var objects: [FlatObject] = []
  var scalars: [ScalarKey: Int] = [:]

  init(maximumDepth: Int) {
    self.maximumDepth = maximumDepth
  }

  mutating func add(_ value: PropertyListValue, depth: Int) throws(PropertyListWriteError) -> Int {
    guard depth <= maximumDepth else { throw .nestingTooDeep(limit: maximumDepth) }
    switch value {
    case .array(let elements):
      let index = reserve()
      var children: [Int] = []
      children.reserveCapacity(elements.count)
      for element in elements { children.append(try add(element, depth: depth + 1)) }
      objects[index] = .array(children)
      return index
    case .dictionary(let entries):
      let index = reserve()
      var keys: [Int] = []
      var values: [Int] = []
      keys.reserveCapacity(entries.count)
      values.reserveCapacity(entries.count)
      for entry in entries { keys.append(scalar(.string(entry.key)) { encodeString(entry.key) }) }
      for entry in entries { values.append(try add(entry.value, depth: depth + 1)) }
      objects[index] = .dictionary(keys: keys, values: values)
      return index
    case .string(let text):
      return scalar(.string(text)) { encodeString(text) }
    case .integer(let number):
      return scalar(.integer(number)) {
        var out: [UInt8] = []
        BinaryPropertyListWriter.appendInteger(number, to: &out)
        return out
      }
    case .unsignedInteger(let number):
      if number <= UInt64(Int64.max) { return try add(.integer(Int64(number)), depth: depth) }
      return scalar(.unsignedInteger(number)) {
        var out: [UInt8] = [0x14]
        BinaryPropertyListWriter.appendBigEndian(0, size: 8, to: &out)
        BinaryPropertyListWriter.appendBigEndian(number, size: 8, to: &out)
        return out
      }
    case .real(let number):
      return scalar(.real(number.bitPattern)) {
        var out: [UInt8] = [0x23]
        BinaryPropertyListWriter.appendBigEndian(number.bitPattern, size: 8, to: &out)
        return out
      }
    case .boolean(let flag):
      return scalar(.boolean(flag)) { [flag ? 0x09 : 0x08] }
    case .date(let date):
      let seconds = date.timeIntervalSinceReferenceDate
      return scalar(.date(seconds.bitPattern)) {
        var out: [UInt8] = [0x33]
        BinaryPropertyListWriter.appendBigEndian(seconds.bitPattern, size: 8, to: &out)
        return out
      }
    case .data(let bytes):
      return scalar(.data(bytes)) {
        var out: [UInt8] = []
        BinaryPropertyListWriter.appendHeader(0x40, count: bytes.count, to: &out)
        out.append(contentsOf: bytes)
        return out
      }
    case .uid(let reference):
      return scalar(.uid(reference)) {
        let size = BinaryPropertyListWriter.byteCount(forUnsigned: reference)
        var out: [UInt8] = [0x80 | UInt8(size - 1)]
        BinaryPropertyListWriter.appendBigEndian(reference, size: size, to: &out)
        return out
      }
    }
  }

  private mutating func reserve() -> Int {
    objects.append(.encoded([]))
    return objects.count - 1
  }

  private mutating func scalar(_ key: ScalarKey, _ encode: () -> [UInt8]) -> Int {
    if let existing = scalars[key] { return existing }
    objects.append(.encoded(encode()))
    scalars[key] = objects.count - 1
    return objects.count - 1
  }
}

/// ASCII as one byte a character; anything else as UTF-16 big-endian, as Apple's writer does.
private func encodeString(_ text: String) -> [UInt8] {
  var out: [UInt8] = []
  if text.utf8.allSatisfy({ $0 < 0x80 }) {
    BinaryPropertyListWriter.appendHeader(0x50, count: text.utf8.count, to: &out)
    out.append(contentsOf: text.utf8)
  } else {
    let units = Array(text.utf16)
    BinaryPropertyListWriter.appendHeader(0x60, count: units.count, to: &out)
    out.reserveCapacity(out.count + units.count * 2)
    for unit in units {
      out.append(UInt8(unit >> 8))
      out.append(UInt8(unit & 0xFF))
    }
  }
  return out
}
