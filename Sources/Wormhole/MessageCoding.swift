import Foundation
import KeyedArchive
import PropertyList

/// Turns mailbox bytes into values and `Codable` values into archivable ones.
enum MessageCoding {
  /// The message in an archive, resolved without instantiating any class. A property list that
  /// is not a keyed archive is returned as its plain value.
  static func decode(_ bytes: [UInt8], path: String) throws(WormholeError) -> ArchivedValue {
    let document: PropertyListDocument
    do {
      document = try PropertyListReader().read(bytes)
    } catch {
      throw .decodingFailed(path: path, reason: error.description)
    }
    do {
      return try KeyedArchiveDecoder().decode(document.root).root
    } catch {
      // A plain property list (not an archive) is a message too: MMWormhole readers on Apple
      // platforms would fail on it, but showing it beats refusing it.
      return ArchivedValue(propertyList: document.root)
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
      return ArchivedValue(propertyList: try PropertyListReader().read(data).root)
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
      let data = try BinaryPropertyListWriter().data(for: plist)
      return try PropertyListDecoder().decode(type, from: data)
    } catch {
      throw .decodingFailed(path: path, reason: String(describing: error))
    }
  }
}

extension ArchivedValue {
  /// The archivable value of a plain property list: dictionaries and arrays become `NSDictionary`
  /// and `NSArray`, scalars stay scalars, and archive references become integers.
  public init(propertyList: PropertyListValue) {
    switch propertyList {
    case .string(let text): self = .string(text)
    case .integer(let number): self = .integer(number)
    case .unsignedInteger(let number): self = .unsignedInteger(number)
    case .real(let number): self = .real(number)
    case .boolean(let flag): self = .boolean(flag)
    case .date(let date): self = .date(date)
    case .data(let bytes): self = .data(bytes)
    case .uid(let reference): self = .unsignedInteger(reference)
    case .array(let elements): self = .array(elements.map(ArchivedValue.init(propertyList:)))
    case .dictionary(let entries):
      self = .dictionary(
        entries.map { ArchivedEntry(key: .string($0.key), value: ArchivedValue(propertyList: $0.value)) })
    }
  }

  /// The value as a plain property list, or `nil` when it holds anything a property list cannot
  /// (null, class instances, non-string keys, references).
  public var propertyListValue: PropertyListValue? {
    switch self {
    case .string(let text): return .string(text)
    case .integer(let number): return .integer(number)
    case .unsignedInteger(let number): return .unsignedInteger(number)
    case .real(let number): return .real(number)
    case .boolean(let flag): return .boolean(flag)
    case .date(let date): return .date(date)
    case .data(let bytes): return .data(bytes)
    case .array(let elements):
      var out: [PropertyListValue] = []
      out.reserveCapacity(elements.count)
      for element in elements {
        guard let value = element.propertyListValue else { return nil }
        out.append(value)
      }
      return .array(out)
    case .dictionary(let entries):
      var out: [PropertyListEntry] = []
      out.reserveCapacity(entries.count)
      for entry in entries {
        guard case .string(let key) = entry.key, let value = entry.value.propertyListValue else { return nil }
        out.append(PropertyListEntry(key: key, value: value))
      }
      return .dictionary(out)
    default:
      return nil
    }
  }
}
