/// One range of an index set.
public struct ArchivedIndexRange: Sendable, Hashable {
  public var location: UInt64
  public var length: UInt64

  public init(location: UInt64, length: UInt64) {
    self.location = location
    self.length = length
  }
}
