import PropertyList

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
  /// Bytes (`NSData`).
  case data([UInt8])
  /// A moment (`NSDate`), in seconds since 2001 as archived.
  case date(ArchiveDate)
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
  case uuid(ArchiveUUID)
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
  /// `NSDecimalNumber`: an exact decimal (its description is the number's text). Last, so that
  /// the other cases keep their tags for objects an incremental build did not recompile.
  case decimal(ArchivedDecimal)
}
