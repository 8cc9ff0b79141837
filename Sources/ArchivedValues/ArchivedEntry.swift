/// One key and value of an archived dictionary.
public struct ArchivedEntry: Sendable, Hashable {
  /// The key: a string in plist messages, but `NSDictionary` allows any object.
  public var key: ArchivedValue
  /// The value stored under ``key``.
  public var value: ArchivedValue

  public init(key: ArchivedValue, value: ArchivedValue) {
    self.key = key
    self.value = value
  }
}
