/// An `NSValue` of an Objective-C type without a native case (an array such as `[3i]`, a struct
/// such as `{CGPoint=dd}`, a scalar), decoded as its type encoding describes.
public struct ArchivedTypedValue: Sendable, Hashable {
  /// The Objective-C type encoding as archived, such as `{CGPoint=dd}`.
  public var encoding: String
  public var value: TypedElement

  public init(encoding: String, value: TypedElement) {
    self.encoding = encoding
    self.value = value
  }
}

/// One value described by an Objective-C type encoding.
public indirect enum TypedElement: Sendable, Hashable {
  /// `c`, `s`, `i`, `l`, `q`.
  case signed(Int64)
  /// `C`, `S`, `I`, `L`, `Q`.
  case unsigned(UInt64)
  /// `f`, `d`.
  case real(Double)
  /// `B`.
  case boolean(Bool)
  /// `*` (C string), `#` (class name) or `:` (selector name) as archived; `nil` for a null one.
  case text(String?)
  /// `@`: an object, resolved like any other archived value.
  case object(ArchivedValue)
  /// `^type` or `?`: an address from the writing process, meaningless here.
  case pointer(UInt64)
  /// `[N type]`.
  case array([TypedElement])
  /// `{name=fields}`: the members in order, with their names when the encoding gives them.
  case structure(name: String?, fields: [TypedElement], fieldNames: [String]?)
  /// `(name=...)` or anything else whose bytes cannot be read as one member: kept as bytes.
  case opaque(encoding: String, bytes: [UInt8])
}
