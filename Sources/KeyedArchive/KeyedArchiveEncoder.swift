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
  public func encodeBytes(_ value: ArchivedValue) throws(KeyedArchiveEncodingError) -> [UInt8] {
    let plist = try propertyList(for: value)
    do {
      // The archive's own nesting is shallow (objects refer to each other by UID), so the
      // writer's depth limit only guards against a bug here.
      return try BinaryPropertyListWriter(maximumDepth: 16).bytes(for: plist)
    } catch {
      throw .nestingTooDeep(limit: maximumDepth)
    }
  }

  /// The archive for `value` as a property-list tree, before serialization.
  public func propertyList(for value: ArchivedValue) throws(KeyedArchiveEncodingError) -> PropertyListValue {
    var graph = ObjectGraph(maximumDepth: maximumDepth)
    let root = try graph.add(value, depth: 0)
    return .dictionary([
      PropertyListEntry(key: "$version", value: .integer(100_000)),
      PropertyListEntry(key: "$archiver", value: .string("NSKeyedArchiver")),
      PropertyListEntry(key: "$top", value: .dictionary([PropertyListEntry(key: rootKey, value: .uid(root))])),
      PropertyListEntry(key: "$objects", value: .array(graph.objects)),
    ])
  }
}

/// Why a value could not be archived.
public enum KeyedArchiveEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The value nests deeper than the encoder's limit.
  case nestingTooDeep(limit: Int)
  /// The value holds a kind of object this encoder cannot write.
  case unsupported(String)

  public var description: String {
    switch self {
    case .nestingTooDeep(let limit):
      return "the message nests more than \(limit) levels deep; flatten it before passing it"
    case .unsupported(let what):
      return "cannot archive \(what); pass the archive's bytes instead"
    }
  }
}

private enum ScalarKey: Hashable {
  case string(String)
  case integer(Int64)
  case unsignedInteger(UInt64)
  case real(UInt64)
  case boolean(Bool)
}

private struct ClassKey: Hashable {
  var chain: [String]
}

private struct ObjectGraph {
  let maximumDepth: Int
  var objects: [PropertyListValue] = [.string("$null")]
  var scalars: [ScalarKey: UInt64] = [:]
  var classes: [ClassKey: UInt64] = [:]
  var nullReference: UInt64?

  init(maximumDepth: Int) {
    self.maximumDepth = maximumDepth
  }

  mutating func add(_ value: ArchivedValue, depth: Int) throws(KeyedArchiveEncodingError) -> UInt64 {
    guard depth <= maximumDepth else { throw .nestingTooDeep(limit: maximumDepth) }
    switch value {
    case .null:
      if let nullReference { return nullReference }
      let reference = append(.dictionary([classEntry(["NSNull", "NSObject"])]))
      nullReference = reference
      return reference
    case .boolean(let flag):
      return scalar(.boolean(flag), .boolean(flag))
    case .integer(let number):
      return scalar(.integer(number), .integer(number))
    case .unsignedInteger(let number):
      return scalar(.unsignedInteger(number), .unsignedInteger(number))
    case .real(let number):
      return scalar(.real(number.bitPattern), .real(number))
    case .string(let text):
      // A bare "$null" string would read back as nil, so it goes in an NSString instance.
      if text == "$null" {
        return append(
          .dictionary([
            PropertyListEntry(key: "NS.string", value: .string(text)), classEntry(["NSString", "NSObject"]),
          ]))
      }
      return scalar(.string(text), .string(text))
    case .data(let bytes):
      return append(.data(bytes))
    case .date(let date):
      return append(
        .dictionary([
          PropertyListEntry(key: "NS.time", value: .real(date.timeIntervalSinceReferenceDate)),
          classEntry(["NSDate", "NSObject"]),
        ]))
    case .array(let elements):
      let reference = reserve()
      var children: [PropertyListValue] = []
      children.reserveCapacity(elements.count)
      for element in elements { children.append(.uid(try add(element, depth: depth + 1))) }
      objects[Int(reference)] = .dictionary([
        PropertyListEntry(key: "NS.objects", value: .array(children)), classEntry(["NSArray", "NSObject"]),
      ])
      return reference
    case .dictionary(let entries):
      let reference = reserve()
      var keys: [PropertyListValue] = []
      var values: [PropertyListValue] = []
      keys.reserveCapacity(entries.count)
      values.reserveCapacity(entries.count)
      for entry in entries { keys.append(.uid(try add(entry.key, depth: depth + 1))) }
      for entry in entries { values.append(.uid(try add(entry.value, depth: depth + 1))) }
      objects[Int(reference)] = .dictionary([
        PropertyListEntry(key: "NS.keys", value: .array(keys)),
        PropertyListEntry(key: "NS.objects", value: .array(values)),
        classEntry(["NSDictionary", "NSObject"]),
      ])
      return reference
    case .object(let object):
      let reference = reserve()
      var entries: [PropertyListEntry] = []
      entries.reserveCapacity(object.fields.count + 1)
      for field in object.fields where field.key != "$class" {
        entries.append(PropertyListEntry(key: field.key, value: try fieldValue(field.value, depth: depth + 1)))
      }
      let chain = object.classChain.first == object.className ? object.classChain : [object.className]
      entries.append(classEntry(chain))
      objects[Int(reference)] = .dictionary(entries)
      return reference
    default:
      throw .unsupported("a value of this kind (\(value))")
    }
  }

  /// Numbers and booleans are encoded inline in an object (as `encodeInt:` and friends do);
  /// everything else is a reference (as `encodeObject:` does).
  private mutating func fieldValue(_ value: ArchivedValue, depth: Int) throws(KeyedArchiveEncodingError)
    -> PropertyListValue
  {
    switch value {
    case .boolean(let flag): return .boolean(flag)
    case .integer(let number): return .integer(number)
    case .unsignedInteger(let number): return .unsignedInteger(number)
    case .real(let number): return .real(number)
    default: return .uid(try add(value, depth: depth))
    }
  }

  private mutating func append(_ object: PropertyListValue) -> UInt64 {
    objects.append(object)
    return UInt64(objects.count - 1)
  }

  private mutating func reserve() -> UInt64 {
    append(.boolean(false))
  }

  private mutating func scalar(_ key: ScalarKey, _ object: PropertyListValue) -> UInt64 {
    if let existing = scalars[key] { return existing }
    let reference = append(object)
    scalars[key] = reference
    return reference
  }

  private mutating func classEntry(_ chain: [String]) -> PropertyListEntry {
    let key = ClassKey(chain: chain)
    if let existing = classes[key] { return PropertyListEntry(key: "$class", value: .uid(existing)) }
    let reference = append(
      .dictionary([
        PropertyListEntry(key: "$classes", value: .array(chain.map { .string($0) })),
        PropertyListEntry(key: "$classname", value: .string(chain.first ?? "NSObject")),
      ]))
    classes[key] = reference
    return PropertyListEntry(key: "$class", value: .uid(reference))
  }
}
