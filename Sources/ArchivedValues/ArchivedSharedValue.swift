/// The first, full occurrence of an object the archive refers to more than once.
public struct ArchivedSharedValue: Sendable, Hashable {
  /// The object's index in `$objects`; references to it carry the same number.
  public var id: UInt64
  /// The object, decoded in full here and nowhere else.
  public var value: ArchivedValue

  public init(id: UInt64, value: ArchivedValue) {
    self.id = id
    self.value = value
  }
}
