import Foundation
import KeyedArchive
import PropertyList

/// Turns mailbox bytes into values and `Codable` values into archivable ones.
enum MessageCoding {
  /// The message in a mailbox, resolved by the archive inspector without instantiating any class
  /// (deep input is handled on a thread with a large stack, so any caller's thread is safe). A
  /// property list that is not a keyed archive is returned as its plain value.
  static func decode(_ bytes: [UInt8], path: String) throws(WormholeError) -> ArchivedValue {
    do {
      return try KeyedArchiveInspector().inspect(bytes).root
    } catch {
      throw .decodingFailed(path: path, reason: error.description)
    }
  }

  /// `value` encoded with `PropertyListEncoder` and turned into archivable values.
  static func archivedValue<Value: Encodable>(encoding value: Value) throws(WormholeError) -> ArchivedValue {
    let data: Data
    do {
      let encoder = PropertyListEncoder()
      encoder.outputFormat = .binary
      data = try encoder.encode(value)
    } catch {
      throw .encodingFailed(String(describing: error))
    }
    do {
      return try KeyedArchiveInspector().inspect(data).root
    } catch {
      throw .encodingFailed(error.description)
    }
  }

  /// `value` decoded as `Value` with `PropertyListDecoder`.
  static func decode<Value: Decodable>(_ type: Value.Type, from value: ArchivedValue, path: String)
    throws(WormholeError) -> Value
  {
    guard let plist = value.propertyListValue else {
      throw .decodingFailed(path: path, reason: "the message holds objects that are not property-list values")
    }
    do {
      let data = Data(try BinaryPropertyListWriter().bytes(for: plist))
      return try PropertyListDecoder().decode(type, from: data)
    } catch {
      throw .decodingFailed(path: path, reason: String(describing: error))
    }
  }
}

extension ArchivedValue {
  /// The value as a plain property list, or `nil` when it holds anything a property list cannot
  /// (null, class instances, non-string keys, a cycle). Shared values are expanded where they
  /// are referenced, as the archive meant.
  public var propertyListValue: PropertyListValue? {
    var converter = PropertyListConversion(limit: inPlaceNestingLimit)
    converter.collectShared(self, depth: 0)
    if !converter.tooDeep { return converter.convert(self, depth: 0) }
    // Deep values are converted again on a thread with a large stack.
    let value = self
    return withLargeStack {
      var deep = PropertyListConversion(limit: .max)
      deep.collectShared(value, depth: 0)
      return deep.convert(value, depth: 0)
    }
  }
}

/// The recursive walk behind ``ArchivedValue/propertyListValue``: first every shared value by its
/// id, then the conversion, resolving references to them.
private struct PropertyListConversion {
  let limit: Int
  var shared: [UInt64: ArchivedValue] = [:]
  var expanding: Set<UInt64> = []
  var tooDeep = false

  init(limit: Int) { self.limit = limit }

  mutating func collectShared(_ value: ArchivedValue, depth: Int) {
    guard depth <= limit else {
      tooDeep = true
      return
    }
    switch value {
    case .shared(let first):
      shared[first.id] = first.value
      collectShared(first.value, depth: depth + 1)
    case .array(let elements):
      for element in elements { collectShared(element, depth: depth + 1) }
    case .dictionary(let entries):
      for entry in entries {
        collectShared(entry.key, depth: depth + 1)
        collectShared(entry.value, depth: depth + 1)
      }
    default:
      return
    }
  }

  mutating func convert(_ value: ArchivedValue, depth: Int) -> PropertyListValue? {
    switch value {
    case .string(let text): return .string(text)
    case .integer(let number): return .integer(number)
    case .unsignedInteger(let number): return .unsignedInteger(number)
    case .real(let number): return .real(number)
    case .boolean(let flag): return .boolean(flag)
    case .date(let date): return .date(date)
    case .data(let bytes): return .data(bytes)
    case .shared(let first): return expand(first.id, first.value, depth: depth)
    case .reference(let reference):
      guard reference.kind == .shared, let target = shared[reference.id] else { return nil }
      return expand(reference.id, target, depth: depth)
    case .array(let elements):
      var out: [PropertyListValue] = []
      out.reserveCapacity(elements.count)
      for element in elements {
        guard let converted = convert(element, depth: depth + 1) else { return nil }
        out.append(converted)
      }
      return .array(out)
    case .dictionary(let entries):
      var out: [PropertyListEntry] = []
      out.reserveCapacity(entries.count)
      for entry in entries {
        guard case .string(let key) = entry.key, let converted = convert(entry.value, depth: depth + 1) else {
          return nil
        }
        out.append(PropertyListEntry(key: key, value: converted))
      }
      return .dictionary(out)
    default:
      return nil
    }
  }

  /// A shared value converted where it is used; one that contains itself is no property list.
  private mutating func expand(_ id: UInt64, _ value: ArchivedValue, depth: Int) -> PropertyListValue? {
    guard !expanding.contains(id) else { return nil }
    expanding.insert(id)
    defer { expanding.remove(id) }
    return convert(value, depth: depth + 1)
  }
}
