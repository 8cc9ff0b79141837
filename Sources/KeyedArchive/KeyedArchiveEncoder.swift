import ArchivedValues
import Foundation
import PropertyList

/// Encodes an ``ArchivedValue`` as an `NSKeyedArchiver` archive (binary property list), in time
/// linear in the number of objects.
///
/// The layout is the one Apple's archiver writes: `$archiver`, `$version` 100000, `$top` with the
/// root under ``rootKey``, and `$objects` starting with `$null`. Strings, numbers and booleans are
/// stored directly in `$objects`; arrays, dictionaries, dates and `NSNull` are instances of
/// `NSArray`, `NSDictionary`, `NSDate` and `NSNull`. Equal strings and numbers are stored once
/// (keyed by type, so `1` and `true` stay distinct: Foundation on Linux merges them), and every
/// class entry is stored once. ``ArchivedObject`` values are written with their class chain and
/// fields, so an archive of a class this program never links can be written back as it was read.
public struct KeyedArchiveEncoder: Sendable {
  /// The `$top` key the root object is stored under. MMWormhole and `archivedData(withRootObject:)`
  /// use `root`.
  public var rootKey: String
  /// The deepest nesting accepted; deeper values throw ``KeyedArchiveEncodingError/nestingTooDeep(limit:)``.
  public var maximumDepth: Int

  public init(rootKey: String = "root", maximumDepth: Int = 512) {
    self.rootKey = rootKey
    self.maximumDepth = maximumDepth
  }

  /// The archive for `value`, as binary property-list bytes.
  public func encode(_ value: ArchivedValue) throws(KeyedArchiveEncodingError) -> Data {
    Data(try encodeBytes(value))
  }

  /// The archive for `value`, as binary property-list bytes.
  ///
  /// Encoding recurses once per nesting level: shallow values (nearly all) are encoded in place,
  /// and a value nesting deeper than a few dozen levels is encoded again on a thread with a large
  /// stack, so that the caller's thread (as little as 512 KB) never overflows.
  public func encodeBytes(_ value: ArchivedValue) throws(KeyedArchiveEncodingError) -> [UInt8] {
    guard maximumDepth > inPlaceNestingLimit else { return try encodeInPlace(value, limit: maximumDepth) }
    do {
      return try encodeInPlace(value, limit: inPlaceNestingLimit)
    } catch .nestingTooDeep {
      let encoder = self
      return try withLargeStack {
        Result { () throws(KeyedArchiveEncodingError) in
          try encoder.encodeInPlace(value, limit: encoder.maximumDepth)
        }
      }.get()
    }
  }

  private func encodeInPlace(_ value: ArchivedValue, limit: Int) throws(KeyedArchiveEncodingError) -> [UInt8]
  {
    var graph = ObjectGraph(maximumDepth: limit)
    let top = graph.builder.reserve()
    let root = try graph.add(value, depth: 0)
    var builder = graph.builder
    let objects = builder.array(graph.archived)
    let rootReference = builder.uid(root)
    let topDictionary = builder.dictionary(keys: [builder.string(rootKey)], values: [rootReference])
    let keys = [
      builder.string("$version"), builder.string("$archiver"), builder.string("$top"),
      builder.string("$objects"),
    ]
    let values = [builder.integer(100_000), builder.string("NSKeyedArchiver"), topDictionary, objects]
    builder.setDictionary(top, keys: keys, values: values)
    return builder.bytes(top: top)
  }
}

/// The `$objects` table under construction, written straight into a binary property list: each
/// archived object is one property-list object, and `archived[n]` is where the object with UID
/// `n` lives.
private struct ObjectGraph {
  let maximumDepth: Int
  var builder = BinaryPropertyListBuilder()
  var archived: [Int] = []
  var scalars: [ScalarKey: UInt64] = [:]
  /// Class entries by class name; a name archived with different chains (rare) keeps each.
  var classes: [String: [(chain: [String], reference: UInt64)]] = [:]
  var nullReference: UInt64?
  // Keys every archive repeats, interned once.
  /// The keys every archive repeats, each written once, on first use, without hashing.
  enum Key: Int, CaseIterable {
    case className = 0, objects, keys, classes, classNameList, time, string

    var text: String {
      switch self {
      case .className: "$class"
      case .objects: "NS.objects"
      case .keys: "NS.keys"
      case .classes: "$classes"
      case .classNameList: "$classname"
      case .time: "NS.time"
      case .string: "NS.string"
      }
    }
  }
  private var keyIndexes = [Int](repeating: -1, count: Key.allCases.count)

  init(maximumDepth: Int) {
    self.maximumDepth = maximumDepth
    archived.reserveCapacity(32)
    archived.append(builder.ununiquedString("$null"))
  }

  private mutating func key(_ key: Key) -> Int {
    let index = keyIndexes[key.rawValue]
    if index >= 0 { return index }
    let added = builder.ununiquedString(key.text)
    keyIndexes[key.rawValue] = added
    return added
  }

  /// UIDs of the values the inspector marked as shared (`@N`), so that later references to them
  /// (and cycles back to an enclosing one) become the same object again.
  private var sharedReferences: [UInt64: UInt64] = [:]

  /// Adds `value` and returns its UID. With `sharing`, the UID is recorded under that shared id
  /// as soon as it exists (before a container's children, so that a cycle resolves).
  mutating func add(_ value: ArchivedValue, depth: Int, sharing: UInt64? = nil)
    throws(KeyedArchiveEncodingError)
    -> UInt64
  {
    guard depth <= maximumDepth else { throw .nestingTooDeep(limit: maximumDepth) }
    switch value {
    case .null:
      if let nullReference { return remember(sharing, nullReference) }
      let reference = object(["NSNull", "NSObject"], keys: [], values: [])
      nullReference = reference
      return remember(sharing, reference)
    case .boolean(let flag):
      return remember(sharing, scalar(.boolean(flag)) { $0.boolean(flag) })
    case .integer(let number):
      return remember(sharing, scalar(.integer(number)) { $0.integer(number) })
    case .unsignedInteger(let number):
      return remember(sharing, scalar(.unsignedInteger(number)) { $0.unsignedInteger(number) })
    case .real(let number):
      return remember(sharing, scalar(.real(number.bitPattern)) { $0.real(number) })
    case .string(let text):
      // A bare "$null" string would read back as nil, so it goes in an NSString instance.
      if text == "$null" {
        return remember(
          sharing, object(["NSString", "NSObject"], keys: [key(.string)], values: [builder.string(text)]))
      }
      return remember(sharing, scalar(.string(text)) { $0.string(text) })
    case .data(let bytes):
      return remember(sharing, append(builder.data(bytes)))
    case .date(let date):
      return remember(
        sharing,
        object(
          ["NSDate", "NSObject"], keys: [key(.time)],
          values: [builder.real(date.secondsSince2001)]))
    case .array(let elements):
      return try collection(elements, chain: ["NSArray", "NSObject"], depth: depth, sharing: sharing)
    case .set(let elements):
      return try collection(elements, chain: ["NSSet", "NSObject"], depth: depth, sharing: sharing)
    case .orderedSet(let elements):
      let reference = remember(sharing, reserve())
      var keys: [Int] = []
      var values: [Int] = []
      for (position, element) in elements.enumerated() {
        keys.append(builder.string("NS.object.\(position)"))
        values.append(builder.uid(try add(element, depth: depth + 1)))
      }
      fill(reference, ["NSOrderedSet", "NSObject"], keys: keys, values: values)
      return reference
    case .countedSet(let elements):
      let reference = remember(sharing, reserve())
      var keys = [builder.string("NS.count")]
      var values = [builder.integer(Int64(elements.count))]
      for (position, element) in elements.enumerated() {
        keys.append(builder.string("NS.object\(position)"))
        values.append(builder.uid(try add(element.value, depth: depth + 1)))
        keys.append(builder.string("NS.count\(position)"))
        values.append(builder.integer(element.count))
      }
      fill(reference, ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"], keys: keys, values: values)
      return reference
    case .dictionary(let entries):
      let reference = remember(sharing, reserve())
      var keys: [Int] = []
      var values: [Int] = []
      keys.reserveCapacity(entries.count)
      values.reserveCapacity(entries.count)
      for entry in entries { keys.append(builder.uid(try add(entry.key, depth: depth + 1))) }
      for entry in entries { values.append(builder.uid(try add(entry.value, depth: depth + 1))) }
      fill(
        reference, ["NSDictionary", "NSObject"], keys: [key(.keys), key(.objects)],
        values: [builder.array(keys), builder.array(values)])
      return reference
    case .url(let url):
      let reference = remember(sharing, reserve())
      let base =
        try url.base.map { base throws(KeyedArchiveEncodingError) in try add(base, depth: depth + 1) } ?? 0
      let relative = try add(.string(url.relative), depth: depth + 1)
      fill(
        reference, ["NSURL", "NSObject"], keys: [builder.string("NS.base"), builder.string("NS.relative")],
        values: [builder.uid(base), builder.uid(relative)])
      return reference
    case .decimal(let decimal):
      // As Apple's encode(with:) writes it: 16 mantissa bytes, little-endian words, zero padded.
      var mantissa = [UInt8](repeating: 0, count: ArchivedDecimal.maximumWords * 2)
      for (index, word) in decimal.words.enumerated() {
        mantissa[index * 2] = UInt8(truncatingIfNeeded: word)
        mantissa[index * 2 + 1] = UInt8(truncatingIfNeeded: word >> 8)
      }
      let names = ["NS.exponent", "NS.length", "NS.negative", "NS.compact", "NS.mantissa.bo", "NS.mantissa"]
      let values = [
        builder.integer(Int64(decimal.exponent)), builder.integer(Int64(decimal.words.count)),
        builder.boolean(decimal.isNegative), builder.boolean(decimal.isCompact), builder.integer(1),
        builder.data(mantissa),
      ]
      return remember(
        sharing,
        object(
          ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"], keys: names.map { builder.string($0) },
          values: values))
    case .uuid(let uuid):
      let bytes = uuid.bytes
      return remember(
        sharing,
        object(["NSUUID", "NSObject"], keys: [builder.string("NS.uuidbytes")], values: [builder.data(bytes)]))
    case .object(let object):
      let reference = remember(sharing, reserve())
      var keys: [Int] = []
      var values: [Int] = []
      keys.reserveCapacity(object.fields.count + 1)
      values.reserveCapacity(object.fields.count + 1)
      for field in object.fields where field.key != "$class" {
        keys.append(builder.string(field.key))
        values.append(try fieldValue(field.value, depth: depth + 1))
      }
      let chain = object.classChain.first == object.className ? object.classChain : [object.className]
      fill(reference, chain, keys: keys, values: values)
      return reference
    case .shared(let first):
      return try add(first.value, depth: depth, sharing: first.id)
    case .reference(let reference):
      guard reference.kind != .unresolved, let target = sharedReferences[reference.id] else {
        throw .unsupported("a reference to object @\(reference.id), which the message does not hold")
      }
      return target
    case .structure:
      throw .unsupported("an NSValue structure (point, size, rectangle, range or insets)")
    case .attributedString:
      throw .unsupported("an attributed string")
    case .indexSet:
      throw .unsupported("an index set")
    case .indexPath:
      throw .unsupported("an index path")
    case .typedValue:
      throw .unsupported("an NSValue of an Objective-C type")
    case .color:
      throw .unsupported("a colour")
    case .font:
      throw .unsupported("a font")
    }
  }

  private mutating func collection(_ elements: [ArchivedValue], chain: [String], depth: Int, sharing: UInt64?)
    throws(KeyedArchiveEncodingError) -> UInt64
  {
    let reference = remember(sharing, reserve())
    var children: [Int] = []
    children.reserveCapacity(elements.count)
    for element in elements { children.append(builder.uid(try add(element, depth: depth + 1))) }
    fill(reference, chain, keys: [key(.objects)], values: [builder.array(children)])
    return reference
  }

  private mutating func remember(_ sharing: UInt64?, _ reference: UInt64) -> UInt64 {
    if let sharing { sharedReferences[sharing] = reference }
    return reference
  }

  /// Numbers and booleans are encoded inline in an object (as `encodeInt:` and friends do);
  /// everything else is a reference (as `encodeObject:` does).
  private mutating func fieldValue(_ value: ArchivedValue, depth: Int) throws(KeyedArchiveEncodingError)
    -> Int
  {
    switch value {
    case .boolean(let flag): return builder.boolean(flag)
    case .integer(let number): return builder.integer(number)
    case .unsignedInteger(let number): return builder.unsignedInteger(number)
    case .real(let number): return builder.real(number)
    default: return builder.uid(try add(value, depth: depth))
    }
  }

  private mutating func append(_ index: Int) -> UInt64 {
    archived.append(index)
    return UInt64(archived.count - 1)
  }

  /// Reserves the UID of a container before its children, so parents precede children as in
  /// Apple's archives.
  private mutating func reserve() -> UInt64 {
    append(-1)
  }

  private mutating func fill(_ reference: UInt64, _ chain: [String], keys: [Int], values: [Int]) {
    let classReference = classEntry(chain)
    let classKey = key(.className)
    archived[Int(reference)] = builder.dictionary(
      keys: keys + [classKey], values: values + [builder.uid(classReference)])
  }

  private mutating func object(_ chain: [String], keys: [Int], values: [Int]) -> UInt64 {
    let reference = reserve()
    fill(reference, chain, keys: keys, values: values)
    return reference
  }

  private mutating func scalar(_ key: ScalarKey, _ make: (inout BinaryPropertyListBuilder) -> Int) -> UInt64 {
    if let existing = scalars[key] { return existing }
    let reference = append(make(&builder))
    scalars[key] = reference
    return reference
  }

  private mutating func classEntry(_ chain: [String]) -> UInt64 {
    let name = chain.first ?? "NSObject"
    if let existing = classes[name]?.first(where: { $0.chain == chain }) { return existing.reference }
    let names = chain.map { builder.string($0) }
    let entry = builder.dictionary(
      keys: [key(.classes), key(.classNameList)],
      values: [builder.array(names), builder.string(chain.first ?? "NSObject")])
    let reference = append(entry)
    classes[name, default: []].append((chain, reference))
    return reference
  }
}
