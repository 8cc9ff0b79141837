/// Builds a binary property list object by object, for writers that know their structure
/// (such as a keyed-archive encoder) and need no intermediate value tree.
///
/// Each call adds an object and returns its index; containers refer to indexes. Scalars are
/// uniqued by type and value (a real by its bit pattern, so 0.0 and -0.0 stay apart); a container
/// is reserved first and filled once its children exist. ``bytes(top:)`` serializes the table.
public struct BinaryPropertyListBuilder: Sendable {
  private enum Object {
    /// Bytes `start..<end` of `encoded`: scalars share one buffer instead of an array each.
    case encoded(start: Int, end: Int)
    case array([Int])
    case dictionary(keys: [Int], values: [Int])
  }

  private var objects: [Object] = []
  private var encoded: [UInt8] = []
  private var scalars: [ScalarKey: Int] = [:]
  /// UIDs are dense small numbers in archives: indexed by value instead of hashed.
  private var uids: [Int] = []

  public init() {
    objects.reserveCapacity(64)
    encoded.reserveCapacity(512)
    scalars.reserveCapacity(32)
  }

  /// The number of objects added so far.
  public var count: Int { objects.count }

  /// Adds a placeholder for a container, to be filled with ``setArray(_:_:)`` or
  /// ``setDictionary(_:keys:values:)``.
  public mutating func reserve() -> Int {
    objects.append(.encoded(start: 0, end: 0))
    return objects.count - 1
  }

  public mutating func setArray(_ index: Int, _ elements: [Int]) {
    objects[index] = .array(elements)
  }

  public mutating func setDictionary(_ index: Int, keys: [Int], values: [Int]) {
    objects[index] = .dictionary(keys: keys, values: values)
  }

  /// An array object holding `elements`.
  public mutating func array(_ elements: [Int]) -> Int {
    objects.append(.array(elements))
    return objects.count - 1
  }

  /// A dictionary object; `keys` and `values` have the same count.
  public mutating func dictionary(keys: [Int], values: [Int]) -> Int {
    objects.append(.dictionary(keys: keys, values: values))
    return objects.count - 1
  }

  public mutating func string(_ text: String) -> Int {
    scalar(.string(text)) { Self.appendString(text, to: &$0) }
  }

  /// A string object that is not uniqued, for a writer that keeps its own index of strings it
  /// repeats (such as an archive's fixed keys): no hashing.
  public mutating func ununiquedString(_ text: String) -> Int {
    let start = encoded.count
    Self.appendString(text, to: &encoded)
    objects.append(.encoded(start: start, end: encoded.count))
    return objects.count - 1
  }

  public mutating func integer(_ number: Int64) -> Int {
    scalar(.integer(number)) { Self.appendInteger(number, to: &$0) }
  }

  public mutating func unsignedInteger(_ number: UInt64) -> Int {
    if number <= UInt64(Int64.max) { return integer(Int64(number)) }
    return scalar(.unsignedInteger(number)) {
      $0.append(0x14)
      Self.appendBigEndian(0, size: 8, to: &$0)
      Self.appendBigEndian(number, size: 8, to: &$0)
    }
  }

  public mutating func real(_ number: Double) -> Int {
    scalar(.real(number.bitPattern)) {
      $0.append(0x23)
      Self.appendBigEndian(number.bitPattern, size: 8, to: &$0)
    }
  }

  public mutating func boolean(_ flag: Bool) -> Int {
    scalar(.boolean(flag)) { $0.append(flag ? 0x09 : 0x08) }
  }

  public mutating func date(_ date: ArchiveDate) -> Int {
    let seconds = date.secondsSince2001
    return scalar(.date(seconds.bitPattern)) {
      $0.append(0x33)
      Self.appendBigEndian(seconds.bitPattern, size: 8, to: &$0)
    }
  }

  /// Data is not uniqued: hashing large payloads costs more than the bytes it could save.
  public mutating func data(_ bytes: [UInt8]) -> Int {
    let start = encoded.count
    Self.appendHeader(0x40, count: bytes.count, to: &encoded)
    encoded.append(contentsOf: bytes)
    objects.append(.encoded(start: start, end: encoded.count))
    return objects.count - 1
  }

  /// An archive reference (`CF$UID`).
  public mutating func uid(_ reference: UInt64) -> Int {
    if reference < 1 << 24 {
      let slot = Int(reference)
      if slot < uids.count, uids[slot] >= 0 { return uids[slot] }
      if slot >= uids.count { uids.append(contentsOf: repeatElement(-1, count: slot - uids.count + 1)) }
      uids[slot] = appendUID(reference)
      return uids[slot]
    }
    return appendUID(reference)
  }

  private mutating func appendUID(_ reference: UInt64) -> Int {
    let size = Self.byteCount(forUnsigned: reference)
    let start = encoded.count
    encoded.append(0x80 | UInt8(size - 1))
    Self.appendBigEndian(reference, size: size, to: &encoded)
    objects.append(.encoded(start: start, end: encoded.count))
    return objects.count - 1
  }

  private mutating func scalar(_ key: ScalarKey, _ encode: (inout [UInt8]) -> Void) -> Int {
    if let existing = scalars[key] { return existing }
    let start = encoded.count
    encode(&encoded)
    objects.append(.encoded(start: start, end: encoded.count))
    scalars[key] = objects.count - 1
    return objects.count - 1
  }

  /// The property list with object `top` as its root.
  public func bytes(top: Int) -> [UInt8] {
    let referenceSize = Self.byteCount(forUnsigned: UInt64(objects.count))
    var out: [UInt8] = []
    out.reserveCapacity(encoded.count + objects.count * 8 + 64)
    out.append(contentsOf: Array("bplist00".utf8))
    var offsets: [Int] = []
    offsets.reserveCapacity(objects.count)
    for object in objects {
      offsets.append(out.count)
      switch object {
      case .encoded(let start, let end):
        out.append(contentsOf: encoded[start..<end])
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

  /// ASCII as one byte a character; anything else as UTF-16 big-endian, as Apple's writer does.
  static func appendString(_ text: String, to out: inout [UInt8]) {
    if text.utf8.allSatisfy({ $0 < 0x80 }) {
      appendHeader(0x50, count: text.utf8.count, to: &out)
      out.append(contentsOf: text.utf8)
    } else {
      let count = text.utf16.count
      appendHeader(0x60, count: count, to: &out)
      out.reserveCapacity(out.count + count * 2)
      for unit in text.utf16 {
        out.append(UInt8(unit >> 8))
        out.append(UInt8(unit & 0xFF))
      }
    }
  }
}
