/// One encoded key of an archived object.
public struct ArchivedField: Sendable, Hashable {
  /// The key the class encoded the value under, such as `NS.objects` or `title`.
  public var key: String
  /// What was encoded under ``key``.
  public var value: ArchivedValue

  public init(key: String, value: ArchivedValue) {
    self.key = key
    self.value = value
  }
}
