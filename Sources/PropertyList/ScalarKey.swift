/// A scalar as a key for storing equal scalars once, by type as well as value, so that `1`,
/// `1.0` and `true` stay distinct (reals and dates by their bit patterns). Shared by the binary
/// property list writer and the archive encoder, which unique the same way.
package enum ScalarKey: Hashable {
  case string(String)
  case integer(Int64)
  case unsignedInteger(UInt64)
  case real(UInt64)
  case boolean(Bool)
  case date(UInt64)
  case data([UInt8])
}
