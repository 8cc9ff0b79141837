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
