import Foundation

@testable import PropertyList

/// A minimal binary property-list writer for building test archives (each value its own object,
/// no uniquing); the production writer lives elsewhere.
func binaryPropertyList(_ root: PropertyListValue) -> [UInt8] {
  var flat = [PropertyListValue]()
  var children = [[Int]]()
  // Iterative flattening so that deeply nested test values do not recurse.
  func add(_ value: PropertyListValue) -> Int {
    flat.append(value)
    children.append([])
    return flat.count - 1
  }
  var pending = [add(root)]
  while let index = pending.popLast() {
    switch flat[index] {
    case .array(let elements):
      children[index] = elements.map { add($0) }
      pending += children[index]
    case .dictionary(let entries):
      let keys = entries.map { add(.string($0.key)) }
      let values = entries.map { add($0.value) }
      children[index] = keys + values
      pending += values
    default: break
    }
  }
  let referenceSize = flat.count < 256 ? 1 : flat.count < 65_536 ? 2 : 4
  var bytes = Array("bplist00".utf8)
  var offsets = [Int]()
  func header(_ kind: UInt8, _ count: Int) {
    if count < 15 {
      bytes.append(kind << 4 | UInt8(count))
    } else {
      bytes.append(kind << 4 | 0xF)
      bytes.append(0x13)
      bytes += bigEndian(UInt64(count), width: 8)
    }
  }
  for (index, value) in flat.enumerated() {
    offsets.append(bytes.count)
    switch value {
    case .boolean(let flag): bytes.append(flag ? 0x09 : 0x08)
    case .integer(let number):
      bytes.append(0x13)
      bytes += bigEndian(UInt64(bitPattern: number), width: 8)
    case .unsignedInteger(let number):
      bytes.append(0x14)
      bytes += bigEndian(0, width: 8) + bigEndian(number, width: 8)
    case .real(let number):
      bytes.append(0x23)
      bytes += bigEndian(number.bitPattern, width: 8)
    case .date(let date):
      bytes.append(0x33)
      bytes += bigEndian(date.secondsSince2001.bitPattern, width: 8)
    case .data(let data):
      header(0x4, data.count)
      bytes += data
    case .string(let text):
      if text.utf8.allSatisfy({ $0 < 0x80 }) {
        header(0x5, text.utf8.count)
        bytes += Array(text.utf8)
      } else {
        let units = Array(text.utf16)
        header(0x6, units.count)
        for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
      }
    case .uid(let number):
      bytes.append(0x87)
      bytes += bigEndian(number, width: 8)
    case .array(let elements):
      header(0xA, elements.count)
      for child in children[index] { bytes += bigEndian(UInt64(child), width: referenceSize) }
    case .dictionary(let entries):
      header(0xD, entries.count)
      for child in children[index] { bytes += bigEndian(UInt64(child), width: referenceSize) }
    }
  }
  let table = bytes.count
  for offset in offsets { bytes += bigEndian(UInt64(offset), width: 8) }
  bytes += [0, 0, 0, 0, 0, 0, 8, UInt8(referenceSize)]
  bytes +=
    bigEndian(UInt64(flat.count), width: 8) + bigEndian(0, width: 8) + bigEndian(UInt64(table), width: 8)
  return bytes
}

func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
  (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
}

/// A keyed archive's property list from its `$objects` (index 0 should be `"$null"`) and `$top`.
func archive(
  _ objects: [PropertyListValue], top: KeyValuePairs<String, PropertyListValue> = ["root": .uid(1)],
  archiver: String = "NSKeyedArchiver"
) -> PropertyListValue {
  .dictionary([
    "$archiver": .string(archiver), "$version": .integer(100_000),
    "$top": .dictionary(top.map { PropertyListEntry(key: $0.key, value: $0.value) }),
    "$objects": .array(objects),
  ])
}

/// A `$classes` description.
func classDescription(_ names: String...) -> PropertyListValue {
  .dictionary(["$classname": .string(names[0]), "$classes": .array(names.map { .string($0) })])
}
