/// One encoded key of an archived object.
public struct ArchivedField: Sendable, Hashable {
  public var key: String
  public var value: ArchivedValue

  public init(key: String, value: ArchivedValue) {
    self.key = key
    self.value = value
  }
}
