/// One value of a property list, binary (`bplist00`) or XML, as it is stored.
///
/// Unlike Foundation's `PropertyListSerialization`, this keeps the archive reference type
/// (`CF$UID`, written by `NSKeyedArchiver`) as ``uid(_:)`` and keeps dictionary entries in
/// file order, so that a keyed archive can be resolved and shown exactly as written.
public indirect enum PropertyListValue: Sendable, Hashable {
  case string(String)
  /// A signed integer of up to 64 bits.
  case integer(Int64)
  /// An unsigned integer above `Int64.max` (binary property lists store these in 16 bytes).
  case unsignedInteger(UInt64)
  case real(Double)
  case boolean(Bool)
  /// A moment, in seconds since 2001 as stored.
  case date(ArchiveDate)
  case data([UInt8])
  case array([PropertyListValue])
  /// Entries in file order; keys are strings in every well-formed property list.
  case dictionary([PropertyListEntry])
  /// An archive reference: an index into a keyed archive's `$objects`.
  case uid(UInt64)
}

extension PropertyListValue {
  /// The value for `key` when this is a dictionary (the first entry with that key), else `nil`.
  public subscript(key: String) -> PropertyListValue? {
    guard case .dictionary(let entries) = self else { return nil }
    for entry in entries where entry.key == key { return entry.value }
    return nil
  }

  /// A dictionary from `(key, value)` pairs, in the order given.
  public static func dictionary(_ pairs: KeyValuePairs<String, PropertyListValue>) -> PropertyListValue {
    .dictionary(pairs.map { PropertyListEntry(key: $0.key, value: $0.value) })
  }
}
