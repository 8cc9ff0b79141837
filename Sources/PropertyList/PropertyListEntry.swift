/// One key and value of a property-list dictionary.
public struct PropertyListEntry: Sendable, Hashable {
  /// The key, as stored (property lists key dictionaries by strings only).
  public var key: String
  /// The value stored under ``key``.
  public var value: PropertyListValue

  public init(key: String, value: PropertyListValue) {
    self.key = key
    self.value = value
  }
}
