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
