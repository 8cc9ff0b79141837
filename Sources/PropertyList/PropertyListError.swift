/// Why a file could not be read as a property list.
///
/// Every case names what is wrong and where, so that an operator looking at a damaged or hostile
/// file knows whether it was truncated, written by something else, or built to hurt the reader.
public enum PropertyListError: Error, Sendable, Hashable {
  /// The file holds no bytes at all.
  case empty
  /// The file starts with neither `bplist00` nor XML; `prefix` shows its first bytes in hex.
  case unrecognizedFormat(prefix: String)
  /// A binary property list too short to hold its header and 32-byte trailer.
  case truncated(length: Int)
  /// The binary trailer holds impossible values; `reason` says which.
  case invalidTrailer(reason: String)
  /// The object count in the trailer cannot fit in a file of this length.
  case objectCountTooLarge(count: UInt64, length: Int)
  /// An entry of the offset table points outside the object area.
  case objectOffsetOutOfRange(object: Int, offset: UInt64)
  /// A reference inside a container names an object that does not exist.
  case referenceOutOfRange(object: Int, reference: UInt64, objectCount: Int)
  /// An object's declared length runs past the end of the file.
  case objectRunsPastEnd(object: Int, offset: Int, needed: UInt64)
  /// An object starts with a marker byte this reader does not know.
  case unknownMarker(object: Int, marker: UInt8)
  /// A UTF-16 string holds an unpaired surrogate (at code unit `unit`).
  case invalidUTF16(object: Int, unit: Int)
  /// Text that should be UTF-8 is not.
  case invalidUTF8(line: Int)
  /// A dictionary key is not a string.
  case nonStringKey(object: Int)
  /// A container contains itself through object references.
  case cyclicContainer(object: Int)
  /// Containers nest deeper than `limit`.
  case nestingTooDeep(limit: Int)
  /// Shared containers would expand to more than `limit` values (a "billion laughs" file).
  case expansionTooLarge(limit: Int)
  /// An integer or reference is wider than 64 bits.
  case integerTooWide(object: Int)
  /// An XML property list is malformed at `line`.
  case malformedXML(line: Int, reason: String)
}

extension PropertyListError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .empty:
      return "the file is empty (zero bytes), so it holds no property list"
    case .unrecognizedFormat(let prefix):
      return "not a property list: it starts with \(prefix), "
        + "neither a binary property list (bplist00) nor XML"
    case .truncated(let length):
      return "truncated binary property list: \(length) bytes cannot hold the 8-byte header "
        + "and the 32-byte trailer"
    case .invalidTrailer(let reason):
      return "damaged binary property list trailer: \(reason)"
    case .objectCountTooLarge(let count, let length):
      return "damaged binary property list: the trailer claims \(count) objects, "
        + "more than a \(length)-byte file can hold"
    case .objectOffsetOutOfRange(let object, let offset):
      return "damaged binary property list: object \(object) is said to start at byte \(offset), "
        + "outside the object area"
    case .referenceOutOfRange(let object, let reference, let count):
      return "damaged binary property list: object \(object) refers to object \(reference), "
        + "but there are only \(count)"
    case .objectRunsPastEnd(let object, let offset, let needed):
      return "truncated or damaged binary property list: object \(object) at byte \(offset) "
        + "needs \(needed) more bytes than the file has"
    case .unknownMarker(let object, let marker):
      let hex = String(marker, radix: 16)
      return "unsupported binary property list: object \(object) has the unknown type marker 0x\(hex)"
    case .invalidUTF16(let object, let unit):
      return "invalid text: string object \(object) has an unpaired UTF-16 surrogate "
        + "at code unit \(unit)"
    case .invalidUTF8(let line):
      return "invalid text: the XML property list is not valid UTF-8 (near line \(line))"
    case .nonStringKey(let object):
      return "invalid property list: dictionary object \(object) has a key that is not a string"
    case .cyclicContainer(let object):
      return "invalid property list: container object \(object) contains itself"
    case .nestingTooDeep(let limit):
      return "property list nests containers more than \(limit) deep; refusing to read further"
    case .expansionTooLarge(let limit):
      return "property list shares containers so often that it would expand to more than "
        + "\(limit) values; refusing to expand it"
    case .integerTooWide(let object):
      return "unsupported number: object \(object) is an integer wider than 64 bits"
    case .malformedXML(let line, let reason):
      return "malformed XML property list at line \(line): \(reason)"
    }
  }
}
