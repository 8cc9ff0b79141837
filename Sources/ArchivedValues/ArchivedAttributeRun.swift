/// One run of an attributed string.
public struct ArchivedAttributeRun: Sendable, Hashable {
  /// Where the run starts, in UTF-16 code units from the start of the text.
  public var location: UInt64
  /// How many UTF-16 code units the run covers.
  public var length: UInt64
  /// Usually a ``ArchivedValue/dictionary(_:)`` of attribute names to values, or a reference to
  /// one shown earlier.
  public var attributes: ArchivedValue

  public init(location: UInt64, length: UInt64, attributes: ArchivedValue) {
    self.location = location
    self.length = length
    self.attributes = attributes
  }
}
