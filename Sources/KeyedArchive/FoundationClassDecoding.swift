import ArchivedValues
import Foundation
import PropertyList

/// Native views of Foundation's own classes, by the keys their `encode(with:)` writes.
///
/// Each decoder first checks the whole layout on the raw property list and only then resolves
/// children, so a layout it cannot interpret costs nothing and falls back to the generic object
/// view (with a warning) instead of failing or dropping keys.
extension ArchiveResolver {
  mutating func decodeFoundation(_ kind: FoundationClass, entries: [PropertyListEntry], object: Int)
    throws(KeyedArchiveError) -> ArchivedValue?
  {
    let fields = Fields(entries)
    let value: ArchivedValue?
    switch kind {
    case .array, .set: value = try decodeArray(fields, object: object, asSet: kind == .set)
    case .orderedSet: value = try decodeOrderedSet(fields, object: object)
    case .countedSet: value = try decodeCountedSet(fields, object: object)
    case .dictionary: value = try decodeDictionary(fields, object: object)
    case .string: value = decodeString(fields)
    case .date: value = decodeDate(fields)
    case .data: value = decodeData(fields, object: object)
    case .url: value = try decodeURL(fields, object: object)
    case .uuid: value = decodeUUID(fields)
    case .null: value = fields.hasOnly([]) ? .null : nil
    case .value:
      value =
        fields["NS.special"] != nil ? decodeStructure(fields) : try decodeTypedValue(fields, object: object)
    case .attributedString: value = try decodeAttributedString(fields, object: object)
    case .indexSet: value = try decodeIndexSet(fields)
    case .indexPath: value = try decodeIndexPath(fields)
    case .color: value = try decodeColor(fields, object: object)
    case .font: value = try decodeFont(fields, object: object)
    case .decimalNumber: value = decodeDecimal(fields)
    }
    if value == nil {
      let name = DisplayText.field(fields.className(in: self) ?? "Foundation")
      var message =
        "this \(name) object has a layout the inspector does not interpret, so it is shown with its encoded keys"
      if kind == .value, let encoding = (fields["$0"] ?? fields["NS.objctype"]).flatMap(peekString) {
        message =
          "this \(name) object holds the type encoding \(DisplayText.quoted(encoding)), which the "
          + "inspector cannot decode, so it is shown with its encoded keys"
      }
      warnings.append(InspectionWarning(.uninterpretedLayout, object: object, message: message))
    }
    return value
  }

  private mutating func decodeArray(_ fields: Fields, object: Int, asSet: Bool) throws(KeyedArchiveError)
    -> ArchivedValue?
  {
    guard fields.hasOnly(["NS.objects"]), case .array(let references)? = fields["NS.objects"] else {
      // The `NS.object.N` layout (SceneKit's archiver and others).
      guard let references = Self.numbered(fields, prefix: "NS.object.", count: fields.entries.count - 1)
      else { return nil }
      var elements = [ArchivedValue]()
      elements.reserveCapacity(references.count)
      for reference in references { elements.append(try convert(reference, object: object, key: nil)) }
      return asSet ? .set(elements) : .array(elements)
    }
    var elements = [ArchivedValue]()
    elements.reserveCapacity(references.count)
    for reference in references { elements.append(try convert(reference, object: object, key: "NS.objects")) }
    return asSet ? .set(elements) : .array(elements)
  }

  private mutating func decodeOrderedSet(_ fields: Fields, object: Int) throws(KeyedArchiveError)
    -> ArchivedValue?
  {
    guard let references = Self.numbered(fields, prefix: "NS.object.", count: fields.entries.count - 1) else {
      return nil
    }
    var elements = [ArchivedValue]()
    elements.reserveCapacity(references.count)
    for reference in references { elements.append(try convert(reference, object: object, key: nil)) }
    return .orderedSet(elements)
  }

  private mutating func decodeCountedSet(_ fields: Fields, object: Int) throws(KeyedArchiveError)
    -> ArchivedValue?
  {
    guard case .integer(let count)? = fields["NS.count"], count >= 0, count <= Int64(fields.entries.count),
      Int(count) * 2 + 2 == fields.entries.count
    else { return nil }
    var objectSlots = [PropertyListValue?](repeating: nil, count: Int(count))
    var countSlots = [Int64?](repeating: nil, count: Int(count))
    for entry in fields.entries where entry.key != "$class" && entry.key != "NS.count" {
      if entry.key.hasPrefix("NS.object"), let position = Int(entry.key.dropFirst(9)),
        objectSlots.indices.contains(position)
      {
        objectSlots[position] = entry.value
      } else if entry.key.hasPrefix("NS.count"), let position = Int(entry.key.dropFirst(8)),
        countSlots.indices.contains(position), case .integer(let times) = entry.value
      {
        countSlots[position] = times
      } else {
        return nil
      }
    }
    var elements = [ArchivedCountedElement]()
    for (slot, times) in zip(objectSlots, countSlots) {
      guard let slot, let times else { return nil }
      elements.append(
        ArchivedCountedElement(value: try convert(slot, object: object, key: nil), count: times))
    }
    return .countedSet(elements)
  }

  private mutating func decodeDictionary(_ fields: Fields, object: Int) throws(KeyedArchiveError)
    -> ArchivedValue?
  {
    let keys: [PropertyListValue]
    let values: [PropertyListValue]
    if fields.hasOnly(["NS.keys", "NS.objects"]), case .array(let keyArray)? = fields["NS.keys"],
      case .array(let valueArray)? = fields["NS.objects"], keyArray.count == valueArray.count
    {
      (keys, values) = (keyArray, valueArray)
    } else if (fields.entries.count - 1) % 2 == 0,
      let keyArray = Self.numbered(fields, prefix: "NS.key.", count: (fields.entries.count - 1) / 2),
      let valueArray = Self.numbered(fields, prefix: "NS.object.", count: (fields.entries.count - 1) / 2)
    {
      // The `NS.key.N` / `NS.object.N` layout (SceneKit's archiver and others).
      (keys, values) = (keyArray, valueArray)
    } else {
      return nil
    }
    var entries = [ArchivedEntry]()
    entries.reserveCapacity(keys.count)
    for (key, value) in zip(keys, values) {
      let resolvedKey = try convert(key, object: object, key: "NS.keys")
      let keyName: String? = if case .string(let name) = resolvedKey { name } else { nil }
      entries.append(ArchivedEntry(key: resolvedKey, value: try convert(value, object: object, key: keyName)))
    }
    return .dictionary(entries)
  }

  private func decodeString(_ fields: Fields) -> ArchivedValue? {
    if fields.hasOnly(["NS.string"]), case .string(let text)? = fields["NS.string"] { return .string(text) }
    if fields.hasOnly(["NS.bytes"]), case .data(let bytes)? = fields["NS.bytes"],
      let text = String(validating: bytes, as: UTF8.self)
    {
      return .string(text)
    }
    return nil
  }

  private func decodeDate(_ fields: Fields) -> ArchivedValue? {
    guard fields.hasOnly(["NS.time"]), let seconds = fields["NS.time"].flatMap(Self.real) else { return nil }
    return .date(ArchiveDate(secondsSince2001: seconds))
  }

  private mutating func decodeData(_ fields: Fields, object: Int) -> ArchivedValue? {
    let data: [UInt8]
    if fields.hasOnly(["NS.data"]), case .data(let bytes)? = fields["NS.data"] {
      data = bytes
    } else if fields.hasOnly(["NS.bytes"]), case .data(let bytes)? = fields["NS.bytes"] {
      data = bytes
    } else {
      return nil
    }
    noteEmbedded(data, object: referrer.object, key: referrer.key)
    return .data(data)
  }

  private mutating func decodeURL(_ fields: Fields, object: Int) throws(KeyedArchiveError) -> ArchivedValue? {
    guard fields.hasOnly(["NS.base", "NS.relative"]), let relativeValue = fields["NS.relative"],
      let relative = peekString(relativeValue)
    else { return nil }
    try charge(relative.utf8.count)
    var base: ArchivedValue?
    if let baseValue = fields["NS.base"] {
      let resolved = try convert(baseValue, object: object, key: "NS.base")
      if resolved != .null { base = resolved }
    }
    return .url(
      ArchivedURL(
        relative: relative, base: base, resolved: base.flatMap { Self.resolve(relative, against: $0) }))
  }

  private func decodeUUID(_ fields: Fields) -> ArchivedValue? {
    guard fields.hasOnly(["NS.uuidbytes"]), case .data(let bytes)? = fields["NS.uuidbytes"], bytes.count == 16
    else { return nil }
    return ArchiveUUID(bytes: bytes).map { .uuid($0) }
  }

  /// `NSDecimalNumber` as its `encode(with:)` writes it: `NS.exponent` (-128...127),
  /// `NS.length` (0...8 significant words), `NS.negative`, `NS.compact`, `NS.mantissa.bo` (1:
  /// little-endian words, as Apple writes; 2: big-endian) and `NS.mantissa` (16 bytes from Apple;
  /// any even count of up to 16 that holds the `NS.length` words is read). `NS.compact` may be
  /// missing; every other key must be there, as Apple's reader refuses the archive otherwise.
  private func decodeDecimal(_ fields: Fields) -> ArchivedValue? {
    let keys = ["NS.exponent", "NS.length", "NS.negative", "NS.compact", "NS.mantissa.bo", "NS.mantissa"]
    guard fields.hasOnly(keys), case .integer(let exponentValue)? = fields["NS.exponent"],
      let exponent = Int8(exactly: exponentValue), case .integer(let length)? = fields["NS.length"],
      length >= 0, length <= Int64(ArchivedDecimal.maximumWords),
      let isNegative = fields["NS.negative"].flatMap(Self.flag),
      case .integer(let byteOrder)? = fields["NS.mantissa.bo"], byteOrder == 1 || byteOrder == 2,
      case .data(let bytes)? = fields["NS.mantissa"], bytes.count % 2 == 0,
      bytes.count <= ArchivedDecimal.maximumWords * 2, bytes.count >= Int(length) * 2
    else { return nil }
    var isCompact = false
    if let compact = fields["NS.compact"] {
      guard let flag = Self.flag(compact) else { return nil }
      isCompact = flag
    }
    var words = [UInt16]()
    for index in 0..<Int(length) {
      let (first, second) = (UInt16(bytes[index * 2]), UInt16(bytes[index * 2 + 1]))
      words.append(byteOrder == 1 ? second << 8 | first : first << 8 | second)
    }
    return ArchivedDecimal(words: words, exponent: exponent, isNegative: isNegative, isCompact: isCompact)
      .map { .decimal($0) }
  }

  /// A boolean as `decodeBool(forKey:)` reads it: a boolean, or the integer 0 or 1.
  static func flag(_ value: PropertyListValue) -> Bool? {
    switch value {
    case .boolean(let flag): return flag
    case .integer(let number) where number == 0 || number == 1: return number == 1
    default: return nil
    }
  }

  /// `relative` resolved against `base` when the base is a plain chain of URLs, else `nil`.
  static func resolve(_ relative: String, against base: ArchivedValue) -> String? {
    var baseValue = base
    if case .shared(let shared) = base { baseValue = shared.value }
    guard case .url(let baseURL) = baseValue, let baseString = baseURL.absoluteString,
      let resolvedBase = URL(string: baseString), let url = URL(string: relative, relativeTo: resolvedBase)
    else { return nil }
    return url.absoluteString
  }

  /// `NSValue` with `NS.special`: 1 point, 2 size, 3 rectangle, 4 range, 12 edge insets.
  private func decodeStructure(_ fields: Fields) -> ArchivedValue? {
    guard case .integer(let special)? = fields["NS.special"] else { return nil }
    switch special {
    case 1:
      guard fields.hasOnly(["NS.special", "NS.pointval"]),
        let numbers = fields["NS.pointval"].flatMap(peekString).flatMap(Self.numbers), numbers.count == 2
      else { return nil }
      return .structure(.point(x: numbers[0], y: numbers[1]))
    case 2:
      guard fields.hasOnly(["NS.special", "NS.sizeval"]),
        let numbers = fields["NS.sizeval"].flatMap(peekString).flatMap(Self.numbers), numbers.count == 2
      else { return nil }
      return .structure(.size(width: numbers[0], height: numbers[1]))
    case 3:
      guard fields.hasOnly(["NS.special", "NS.rectval"]),
        let numbers = fields["NS.rectval"].flatMap(peekString).flatMap(Self.numbers), numbers.count == 4
      else { return nil }
      return .structure(.rect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3]))
    case 4:
      guard fields.hasOnly(["NS.special", "NS.rangeval.location", "NS.rangeval.length"]),
        let location = fields["NS.rangeval.location"].flatMap(peekUnsigned),
        let length = fields["NS.rangeval.length"].flatMap(peekUnsigned)
      else { return nil }
      return .structure(.range(location: location, length: length))
    case 12:
      let keys = ["NS.edgeval.top", "NS.edgeval.left", "NS.edgeval.bottom", "NS.edgeval.right"]
      guard fields.hasOnly(["NS.special"] + keys) else { return nil }
      var values = [Double]()
      for key in keys {
        guard let number = fields[key].flatMap(peek).flatMap(Self.real) else { return nil }
        values.append(number)
      }
      return .structure(.edgeInsets(top: values[0], left: values[1], bottom: values[2], right: values[3]))
    default:
      return nil
    }
  }

  private mutating func decodeAttributedString(_ fields: Fields, object: Int) throws(KeyedArchiveError)
    -> ArchivedValue?
  {
    guard fields.hasOnly(["NSString", "NSAttributes", "NSAttributeInfo"]),
      let text = fields["NSString"].flatMap(peekString)
    else { return nil }
    let textLength = UInt64(text.utf16.count)
    guard let attributes = fields["NSAttributes"] else {
      try charge(text.utf8.count)
      return .attributedString(ArchivedAttributedString(text: text, runs: []))
    }
    guard let infoValue = fields["NSAttributeInfo"] else {
      try charge(text.utf8.count)
      let value = try convert(attributes, object: object, key: "NSAttributes")
      return .attributedString(
        ArchivedAttributedString(
          text: text, runs: [ArchivedAttributeRun(location: 0, length: textLength, attributes: value)]))
    }
    // Several runs: NSAttributes is an array of attribute dictionaries and NSAttributeInfo holds
    // (run length, attribute index) pairs as unsigned variable-length integers.
    guard let info = peekData(infoValue), let pairs = Self.varints(info), pairs.count % 2 == 0,
      let table = peek(attributes), let references = Self.arrayElements(table, resolver: self)
    else { return nil }
    var runs = [ArchivedAttributeRun]()
    var location: UInt64 = 0
    var pairIndex = 0
    while pairIndex < pairs.count {
      let (length, attributeIndex) = (pairs[pairIndex], pairs[pairIndex + 1])
      guard attributeIndex < UInt64(references.count) else { return nil }
      let (end, overflow) = location.addingReportingOverflow(length)
      guard !overflow, end <= textLength else { return nil }
      runs.append(ArchivedAttributeRun(location: location, length: length, attributes: .null))
      location = end
      pairIndex += 2
    }
    try charge(text.utf8.count + runs.count * 16)
    // Layout checked; now resolve the attribute dictionaries, each shown once and referenced after.
    var uses = [Int](repeating: 0, count: references.count)
    for pair in stride(from: 1, to: pairs.count, by: 2) { uses[Int(pairs[pair])] += 1 }
    for (index, count) in uses.enumerated() where count > 1 { markShared(references[index]) }
    pairIndex = 1
    for runIndex in runs.indices {
      let reference = references[Int(pairs[pairIndex])]
      runs[runIndex].attributes = try convert(reference, object: object, key: "NSAttributes")
      pairIndex += 2
    }
    return .attributedString(ArchivedAttributedString(text: text, runs: runs))
  }

  private mutating func decodeIndexSet(_ fields: Fields) throws(KeyedArchiveError) -> ArchivedValue? {
    guard
      let numbers = try countedNumbers(
        fields, count: "NSRangeCount", inline: ["NSLocation", "NSLength"], data: "NSRangeData")
    else { return nil }
    var ranges = [ArchivedIndexRange]()
    ranges.reserveCapacity(numbers.count / 2)
    for pair in stride(from: 0, to: numbers.count, by: 2) {
      ranges.append(ArchivedIndexRange(location: numbers[pair], length: numbers[pair + 1]))
    }
    return .indexSet(ranges)
  }

  private mutating func decodeIndexPath(_ fields: Fields) throws(KeyedArchiveError) -> ArchivedValue? {
    try countedNumbers(
      fields, count: "NSIndexPathLength", inline: ["NSIndexPathValue"], data: "NSIndexPathData"
    ).map { .indexPath($0) }
  }

  /// The numbers of an index set or an index path as Foundation archives them: `count` items of
  /// `inline.count` numbers each, none for a count of 0, the `inline` keys' values for one item,
  /// else varints in `data`. `nil` when the fields are not in that form.
  private mutating func countedNumbers(_ fields: Fields, count key: String, inline: [String], data: String)
    throws(KeyedArchiveError) -> [UInt64]?
  {
    guard case .integer(let count)? = fields[key] else { return nil }
    switch count {
    case 0:
      return fields.hasOnly([key]) ? [] : nil
    case 1:
      guard fields.hasOnly([key] + inline) else { return nil }
      var numbers: [UInt64] = []
      for name in inline {
        guard let number = fields[name].flatMap(peekUnsigned) else { return nil }
        numbers.append(number)
      }
      return numbers
    default:
      guard fields.hasOnly([key, data]),
        let bytes = fields[data].flatMap(peekData),
        let numbers = Self.varints(bytes), numbers.count % inline.count == 0,
        Int64(numbers.count / inline.count) == count
      else { return nil }
      try charge(numbers.count * 8)
      return numbers
    }
  }

  // MARK: - Reading children without decoding them

  /// Text stored directly or in an `NSString`/`NSMutableString` object.
  func peekString(_ value: PropertyListValue) -> String? {
    switch peek(value) {
    case .string(let text)? where text != "$null": return text
    case .dictionary? where ["NSString", "NSMutableString"].contains(peekClassName(value) ?? ""):
      if case .dictionary(let entries)? = peek(value),
        case .string(let text)? = entries.first(where: { $0.key == "NS.string" })?.value
      {
        return text
      }
      return nil
    default: return nil
    }
  }

  /// Bytes stored directly or in an `NSData`/`NSMutableData` object.
  func peekData(_ value: PropertyListValue) -> [UInt8]? {
    switch peek(value) {
    case .data(let data)?: return data
    case .dictionary(let entries)? where ["NSData", "NSMutableData"].contains(peekClassName(value) ?? ""):
      if case .data(let data)? = entries.first(where: { $0.key == "NS.data" })?.value { return data }
      return nil
    default: return nil
    }
  }

  func peekUnsigned(_ value: PropertyListValue) -> UInt64? {
    switch peek(value) {
    case .integer(let number)? where number >= 0: return UInt64(number)
    case .unsignedInteger(let number)?: return number
    default: return nil
    }
  }

  static func real(_ value: PropertyListValue) -> Double? {
    switch value {
    case .real(let number): return number
    case .integer(let number): return Double(number)
    default: return nil
    }
  }

  /// The element references of an `NSArray` object (or a bare array).
  static func arrayElements(_ value: PropertyListValue, resolver: ArchiveResolver) -> [PropertyListValue]? {
    switch value {
    case .array(let elements): return elements
    case .dictionary(let entries):
      if case .array(let elements)? = entries.first(where: { $0.key == "NS.objects" })?.value {
        return elements
      }
      return nil
    default: return nil
    }
  }

  /// The values of keys `prefix0` up to `prefix(count-1)`, each present once; `nil` when any is
  /// missing. Keys without the prefix are ignored (the caller checks the total count).
  static func numbered(_ fields: Fields, prefix: String, count: Int) -> [PropertyListValue]? {
    guard count >= 0 else { return nil }
    var slots = [PropertyListValue?](repeating: nil, count: count)
    var found = 0
    for entry in fields.entries where entry.key.hasPrefix(prefix) {
      let digits = entry.key.utf8.dropFirst(prefix.utf8.count)
      guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
        digits.first != 0x30 || digits.count == 1
      else { return nil }
      var position = 0
      for digit in digits { position = position * 10 + Int(digit - 0x30) }
      guard position < count, slots[position] == nil else { return nil }
      slots[position] = entry.value
      found += 1
    }
    guard found == count else { return nil }
    return slots.compactMap { $0 }
  }

  /// Unsigned LEB128 integers, as Foundation packs index sets, index paths and attribute runs.
  static func varints(_ data: [UInt8]) -> [UInt64]? {
    var result = [UInt64]()
    var current: UInt64 = 0
    var shift: UInt64 = 0
    for byte in data {
      guard shift < 64 else { return nil }
      let bits = UInt64(byte & 0x7F)
      guard shift == 0 || bits >> (64 - shift) == 0 else { return nil }
      current |= bits << shift
      if byte & 0x80 == 0 {
        result.append(current)
        current = 0
        shift = 0
      } else {
        shift += 7
      }
    }
    return shift == 0 ? result : nil
  }

  /// The numbers in a geometry string such as `{{400, 300}, {200, 300}}`.
  static func numbers(_ text: String) -> [Double]? {
    var result = [Double]()
    for token in text.split(whereSeparator: { "{}, ".contains($0) }) {
      guard let number = Double(token) else { return nil }
      result.append(number)
    }
    return result
  }
}

/// An object's encoded keys, looked up by name.
struct Fields {
  let entries: [PropertyListEntry]

  init(_ entries: [PropertyListEntry]) { self.entries = entries }

  subscript(key: String) -> PropertyListValue? {
    entries.first(where: { $0.key == key })?.value
  }

  /// Whether every key other than `$class` is one of `allowed`.
  func hasOnly(_ allowed: [String]) -> Bool {
    entries.allSatisfy { $0.key == "$class" || allowed.contains($0.key) }
  }

  func className(in resolver: ArchiveResolver) -> String? {
    guard let classValue = self["$class"] else { return nil }
    return resolver.peekClassName(.dictionary([PropertyListEntry(key: "$class", value: classValue)]))
  }
}
