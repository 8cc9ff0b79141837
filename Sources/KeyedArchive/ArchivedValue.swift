import Foundation

/// A value decoded from, or to be encoded into, an `NSKeyedArchiver` archive, without any class
/// being instantiated.
///
/// Foundation's plist types are native cases; every other class is an ``object(_:)`` holding its
/// class name, class chain and encoded keys, so archives from apps this program never links can
/// be shown and written back.
public indirect enum ArchivedValue: Sendable, Hashable {
  /// `NSNull`, or the archive's `$null` reference.
  case null
  case boolean(Bool)
  case integer(Int64)
  /// An unsigned integer above `Int64.max`.
  case unsignedInteger(UInt64)
  case real(Double)
  case string(String)
  case data(Data)
  case date(Date)
  case array([ArchivedValue])
  /// `NSDictionary` entries in archive order; keys may be any value (strings in plist messages).
  case dictionary([ArchivedEntry])
  /// An instance of a class without a native case here.
  case object(ArchivedObject)
  /// `NSSet` or `NSMutableSet`, elements in archive order.
  case set([ArchivedValue])
  /// `NSOrderedSet` or `NSMutableOrderedSet`.
  case orderedSet([ArchivedValue])
  /// `NSCountedSet`: each distinct element with how many times it was added.
  case countedSet([ArchivedCountedElement])
  /// `NSURL`: a relative string, resolved against an optional base URL.
  case url(ArchivedURL)
  /// `NSUUID`.
  case uuid(UUID)
  /// `NSValue` holding a point, size, rectangle, range or edge insets.
  case structure(ArchivedStructure)
  /// `NSValue` of any other Objective-C type (an array, a struct, a scalar), decoded as its type
  /// encoding describes.
  case typedValue(ArchivedTypedValue)
  /// `NSColor` or `UIColor` (or a subclass): components, colour space, name.
  case color(ArchivedColor)
  /// `NSFont` or `UIFont` (or a subclass): name, size, traits.
  case font(ArchivedFont)
  /// `NSAttributedString` or `NSMutableAttributedString`: text plus attribute runs.
  case attributedString(ArchivedAttributedString)
  /// `NSIndexSet` or `NSMutableIndexSet`, as ranges in archive order.
  case indexSet([ArchivedIndexRange])
  /// `NSIndexPath`.
  case indexPath([UInt64])
  /// The first occurrence of an object that the archive refers to more than once, shown in full
  /// and labelled with its `$objects` index so that later ``reference(_:)``s can point at it.
  case shared(ArchivedSharedValue)
  /// A later occurrence of a shared object, a reference back to an enclosing object (a cycle),
  /// or an archive reference left unresolved in a property list that is not an archive.
  case reference(ArchivedReference)
}

/// One distinct element of an `NSCountedSet` and its count.
public struct ArchivedCountedElement: Sendable, Hashable {
  public var value: ArchivedValue
  public var count: Int64

  public init(value: ArchivedValue, count: Int64) {
    self.value = value
    self.count = count
  }
}

/// An archived `NSURL`: `relative` is the string as written, `base` the URL it is relative to.
public struct ArchivedURL: Sendable, Hashable {
  public var relative: String
  /// The base URL (usually a ``ArchivedValue/url(_:)``), or `nil` for an absolute URL.
  public var base: ArchivedValue?

  public init(relative: String, base: ArchivedValue? = nil) {
    self.relative = relative
    self.base = base
  }
}

/// A geometric or range structure archived in an `NSValue` (its `NS.special` kinds).
public enum ArchivedStructure: Sendable, Hashable {
  case point(x: Double, y: Double)
  case size(width: Double, height: Double)
  case rect(x: Double, y: Double, width: Double, height: Double)
  case range(location: UInt64, length: UInt64)
  case edgeInsets(top: Double, left: Double, bottom: Double, right: Double)
}

/// An archived attributed string: its text and the attributes of each run.
public struct ArchivedAttributedString: Sendable, Hashable {
  public var text: String
  /// Runs in order; locations and lengths count UTF-16 code units, as Foundation does.
  public var runs: [ArchivedAttributeRun]

  public init(text: String, runs: [ArchivedAttributeRun]) {
    self.text = text
    self.runs = runs
  }
}

/// One run of an attributed string.
public struct ArchivedAttributeRun: Sendable, Hashable {
  public var location: UInt64
  public var length: UInt64
  /// Usually a ``ArchivedValue/dictionary(_:)`` of attribute names to values, or a reference to
  /// one shown earlier.
  public var attributes: ArchivedValue

  public init(location: UInt64, length: UInt64, attributes: ArchivedValue) {
    self.location = location
    self.length = length
    self.attributes = attributes
  }
}

/// One range of an index set.
public struct ArchivedIndexRange: Sendable, Hashable {
  public var location: UInt64
  public var length: UInt64

  public init(location: UInt64, length: UInt64) {
    self.location = location
    self.length = length
  }
}

/// The first, full occurrence of an object the archive refers to more than once.
public struct ArchivedSharedValue: Sendable, Hashable {
  /// The object's index in `$objects`; references to it carry the same number.
  public var id: UInt64
  public var value: ArchivedValue

  public init(id: UInt64, value: ArchivedValue) {
    self.id = id
    self.value = value
  }
}

/// A reference to an object in `$objects` that is shown elsewhere, or not at all.
public struct ArchivedReference: Sendable, Hashable {
  /// What the reference points at.
  public enum Kind: String, Sendable, Hashable {
    /// An object already shown in full earlier, labelled with the same ``id``.
    case shared
    /// An object that encloses this reference: the archive is cyclic here.
    case cycle
    /// A raw archive reference (UID) in a property list that is not a resolvable archive.
    case unresolved
  }

  /// The object's index in `$objects` (the UID's value).
  public var id: UInt64
  public var kind: Kind

  public init(id: UInt64, kind: Kind) {
    self.id = id
    self.kind = kind
  }
}

/// One key and value of an archived dictionary.
public struct ArchivedEntry: Sendable, Hashable {
  public var key: ArchivedValue
  public var value: ArchivedValue

  public init(key: ArchivedValue, value: ArchivedValue) {
    self.key = key
    self.value = value
  }
}

/// An archived instance of a class, shown by its name, its class chain and its encoded fields.
public struct ArchivedObject: Sendable, Hashable {
  /// The class name as archived, such as `NSMeasurement`.
  public var className: String
  /// The class followed by its superclasses as archived (`$classes`), such as
  /// `["NSMeasurement", "NSObject"]`.
  public var classChain: [String]
  /// The encoded keys and values in archive order, without `$class`.
  public var fields: [ArchivedField]

  public init(className: String, classChain: [String], fields: [ArchivedField]) {
    self.className = className
    self.classChain = classChain
    self.fields = fields
  }
}

/// One encoded key of an archived object.
public struct ArchivedField: Sendable, Hashable {
  public var key: String
  public var value: ArchivedValue

  public init(key: String, value: ArchivedValue) {
    self.key = key
    self.value = value
  }
}
