/// One distinct element of an `NSCountedSet` and its count.
public struct ArchivedCountedElement: Sendable, Hashable {
  public var value: ArchivedValue
  public var count: Int64

  public init(value: ArchivedValue, count: Int64) {
    self.value = value
    self.count = count
  }
}
