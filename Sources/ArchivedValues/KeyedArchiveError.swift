/// Why a readable property list is not a valid `NSKeyedArchiver` archive.
///
/// The inspector does not fail on these: it shows the property list as it is and gives this error
/// as the reason it could not be resolved (``Inspection/notArchiveReason``).
public enum KeyedArchiveError: Error, Sendable, Hashable {
  /// The top value is not a dictionary.
  case topIsNotDictionary
  /// A required key (`$objects` or `$top`) is missing.
  case missingKey(String)
  /// A key holds the wrong kind of value, such as `$objects` not being an array.
  case wrongType(key: String, expected: String)
  /// `$top` holds no entries.
  case emptyTop
  /// A reference names an object beyond the end of `$objects` (`object` is where it was found,
  /// `nil` for `$top`).
  case referenceOutOfRange(reference: UInt64, object: Int?, objectCount: Int)
  /// An object's `$class` is not a reference to a class description.
  case invalidClassReference(object: Int)
  /// A class description lacks a string `$classname` (or has a malformed `$classes`).
  case invalidClassDescription(object: Int, classObject: Int)
  /// Objects nest deeper than `limit` (the raw `$objects` are shown instead).
  case nestingTooDeep(limit: Int)
  /// Decoding would copy out more than `limit` bytes of shared content.
  case expansionTooLarge(limit: Int)
}

extension KeyedArchiveError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .topIsNotDictionary:
      return "not a keyed archive: the property list's top value is not a dictionary"
    case .missingKey(let key):
      return "not a keyed archive: there is no \(key) key"
    case .wrongType(let key, let expected):
      return "not a valid keyed archive: \(key) should be \(expected)"
    case .emptyTop:
      return "not a valid keyed archive: $top holds no root objects"
    case .referenceOutOfRange(let reference, let object, let count):
      let place = object.map { "object \($0)" } ?? "$top"
      return "not a valid keyed archive: \(place) refers to object \(reference), "
        + "but $objects holds only \(count)"
    case .invalidClassReference(let object):
      return "not a valid keyed archive: the $class of object \(object) is not a reference"
    case .invalidClassDescription(let object, let classObject):
      return "not a valid keyed archive: object \(object) names class description \(classObject), "
        + "which lacks a string $classname"
    case .nestingTooDeep(let limit):
      return "keyed archive nests objects more than \(limit) deep; showing its raw $objects instead"
    case .expansionTooLarge(let limit):
      return "keyed archive shares content so often that showing it would copy more than "
        + "\(limit) bytes; showing its raw $objects instead"
    }
  }
}
