/// A property list read from bytes: its top value and the form it was stored in.
public struct PropertyListDocument: Sendable, Hashable {
  /// Whether the bytes were binary or XML.
  public var format: PropertyListFormat
  /// The top value: for a keyed archive, the dictionary holding `$objects` and `$top`.
  public var root: PropertyListValue
  /// Strings read with unpaired UTF-16 surrogates replaced by U+FFFD, one entry per string, in
  /// the order they were read (binary property lists only: XML cannot hold them).
  public var unpairedSurrogates: [UnpairedSurrogate]

  public init(
    format: PropertyListFormat, root: PropertyListValue, unpairedSurrogates: [UnpairedSurrogate] = []
  ) {
    self.format = format
    self.root = root
    self.unpairedSurrogates = unpairedSurrogates
  }
}
