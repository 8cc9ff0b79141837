/// A property list read from bytes: its top value and the form it was stored in.
public struct PropertyListDocument: Sendable, Hashable {
  /// Whether the bytes were binary or XML.
  public var format: PropertyListFormat
  /// The top value: for a keyed archive, the dictionary holding `$objects` and `$top`.
  public var root: PropertyListValue

  public init(format: PropertyListFormat, root: PropertyListValue) {
    self.format = format
    self.root = root
  }
}
