/// One distinct element of an `NSCountedSet` and its count.
public struct ArchivedCountedElement: Sendable, Hashable {
  /// The element, shown once.
  public var value: ArchivedValue
  /// How many times it was added (`NSCountedSet`'s count for it, as archived).
  public var count: Int64

  public init(value: ArchivedValue, count: Int64) {
    self.value = value
    self.count = count
  }
}
