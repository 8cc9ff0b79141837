/// One range of an index set.
public struct ArchivedIndexRange: Sendable, Hashable {
  /// The first index in the range.
  public var location: UInt64
  /// How many consecutive indexes the range holds.
  public var length: UInt64

  public init(location: UInt64, length: UInt64) {
    self.location = location
    self.length = length
  }
}
