import ArchivedValues
import PropertyList

/// `NSValue`s of types without a native case, decoded from their Objective-C type encoding.
///
/// Two layouts carry one: `NSKeyedArchiver`'s generic keys, where `$0` is the encoding and each
/// member follows under `$1`, `$2`... (a struct's members one by one, an array of scalars as one
/// `_NSKeyedCoderOldStyleArray`), and the encoding under `NS.objctype` with the value's bytes
/// under `NS.bytes`, packed as in memory.
extension ArchiveResolver {
  mutating func decodeTypedValue(_ fields: Fields, object: Int) throws(KeyedArchiveError) -> ArchivedValue? {
    if let encodingValue = fields["NS.objctype"] {
      guard fields.hasOnly(["NS.objctype", "NS.bytes"]), let encoding = peekEncoding(encodingValue),
        let bytes = fields["NS.bytes"].flatMap(peekData), let type = ObjCType(encoding),
        type.size == bytes.count, let value = type.read([UInt8](bytes), at: 0)
      else { return nil }
      try charge(type.nodeCount * 16)
      return .typedValue(ArchivedTypedValue(encoding: encoding, value: value))
    }
    guard let encodingValue = fields["$0"], let encoding = peekEncoding(encodingValue),
      let type = ObjCType(encoding)
    else { return nil }
    // Every other key is a generic one, `$1` up to the last member, each used exactly once.
    var members = [PropertyListValue?](repeating: nil, count: fields.entries.count)
    for entry in fields.entries where entry.key != "$class" && entry.key != "$0" {
      guard entry.key.hasPrefix("$"), let position = Int(entry.key.dropFirst()), position >= 1,
        position < members.count, members[position] == nil
      else { return nil }
      members[position] = entry.value
    }
    var cursor = 1
    guard try readGeneric(type, members: members, cursor: &cursor, object: object, resolving: false) != nil,
      cursor == fields.entries.count - 1
    else { return nil }
    try charge(type.nodeCount * 16)
    cursor = 1
    guard
      let value = try readGeneric(type, members: members, cursor: &cursor, object: object, resolving: true)
    else { return nil }
    return .typedValue(ArchivedTypedValue(encoding: encoding, value: value))
  }

  /// A type encoding archived as a string (or string object) or as C-string bytes.
  private func peekEncoding(_ value: PropertyListValue) -> String? {
    if let text = peekString(value) { return text }
    guard var bytes = peekData(value) else { return nil }
    if bytes.last == 0 { bytes.removeLast() }
    return String(validating: bytes, as: UTF8.self)
  }

  /// Reads one value of `type` from the generic members starting at `cursor`; objects are
  /// resolved only when `resolving` (the first pass only checks the layout).
  private mutating func readGeneric(
    _ type: ObjCType, members: [PropertyListValue?], cursor: inout Int, object: Int, resolving: Bool
  ) throws(KeyedArchiveError) -> TypedElement? {
    if case .structure(let name, let fieldTypes, let names) = type {
      var values = [TypedElement]()
      for fieldType in fieldTypes {
        guard
          let value = try readGeneric(
            fieldType, members: members, cursor: &cursor, object: object, resolving: resolving)
        else { return nil }
        values.append(value)
      }
      return .structure(name: name, fields: values, fieldNames: names)
    }
    guard cursor < members.count, let member = members[cursor] else { return nil }
    cursor += 1
    switch type {
    case .array(let count, let element):
      guard element.isScalar, case .dictionary(let entries)? = peek(member),
        peekClassName(member) == "_NSKeyedCoderOldStyleArray"
      else { return nil }
      let array = Fields(entries)
      guard case .integer(let archivedCount)? = array["NS.count"], archivedCount == Int64(count),
        case .integer(let code)? = array["NS.type"], ObjCType(code: code) == element,
        entries.count == count + 4 || (entries.count == count + 3 && array["NS.size"] == nil)
      else { return nil }
      // The elements under `$0`...`$(count-1)`, found in one pass.
      var slots = [PropertyListValue?](repeating: nil, count: count)
      for entry in entries where entry.key.hasPrefix("$") && entry.key != "$class" {
        guard let position = Int(entry.key.dropFirst()), position >= 0, position < count,
          slots[position] == nil
        else { return nil }
        slots[position] = entry.value
      }
      var elements = [TypedElement]()
      elements.reserveCapacity(count)
      for slot in slots {
        guard let value = slot else { return nil }
        switch element {
        case .object:
          elements.append(
            .object(resolving ? try convert(value, object: object, key: "$\(cursor - 1)") : .null))
        case .cString, .classObject, .selector:
          if case .string("$null")? = peek(value) {
            elements.append(.text(nil))
          } else {
            guard let text = peekString(value) else { return nil }
            elements.append(.text(text))
          }
        default:
          guard let scalar = scalar(element, value) else { return nil }
          elements.append(scalar)
        }
      }
      return .array(elements)
    case .object:
      return .object(resolving ? try convert(member, object: object, key: "$\(cursor - 1)") : .null)
    case .cString, .classObject, .selector:
      if case .string("$null")? = peek(member) { return .text(nil) }
      guard let text = peekString(member) else { return nil }
      return .text(text)
    case .union, .pointer, .structure, .void:
      return nil
    default:
      return scalar(type, member)
    }
  }

  private func scalar(_ type: ObjCType, _ value: PropertyListValue) -> TypedElement? {
    switch (type, peek(value)) {
    case (.float, .real(let number)?), (.double, .real(let number)?): return .real(number)
    case (.float, .integer(let number)?), (.double, .integer(let number)?): return .real(Double(number))
    case (.bool, .boolean(let flag)?): return .boolean(flag)
    case (.bool, .integer(let number)?): return .boolean(number != 0)
    case (.unsignedChar, .integer(let number)?), (.unsignedShort, .integer(let number)?),
      (.unsignedInt, .integer(let number)?), (.unsignedLong, .integer(let number)?),
      (.unsignedLongLong, .integer(let number)?):
      return .unsigned(UInt64(bitPattern: number))
    case (.unsignedLongLong, .unsignedInteger(let number)?): return .unsigned(number)
    case (.char, .integer(let number)?), (.short, .integer(let number)?), (.int, .integer(let number)?),
      (.long, .integer(let number)?), (.longLong, .integer(let number)?):
      return .signed(number)
    case (.char, .boolean(let flag)?): return .signed(flag ? 1 : 0)
    default: return nil
    }
  }
}
