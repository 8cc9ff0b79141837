/// One key and value of an archived dictionary.
public struct ArchivedEntry: Sendable, Hashable {
  public var key: ArchivedValue
  public var value: ArchivedValue

  public init(key: ArchivedValue, value: ArchivedValue) {
    self.key = key
    self.value = value
  }
}
