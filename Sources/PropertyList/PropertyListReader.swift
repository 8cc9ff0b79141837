/// Reads binary (`bplist00`) and XML property lists, keeping archive references (UIDs).
///
/// The reader is written for hostile input: every offset, count and reference is checked against
/// the file before use, arithmetic is overflow-checked, containers may not contain themselves,
/// nesting is limited to ``maximumDepth``, and files whose shared containers would expand into far
/// more values than they have bytes are refused. Any failure is a ``PropertyListError``.
///
/// ```swift
/// let document = try PropertyListReader().read(bytes)
/// print(document.format, document.root)
/// ```
public struct PropertyListReader: Sendable {
  /// The deepest container nesting accepted; deeper files fail with
  /// ``PropertyListError/nestingTooDeep(limit:)`` instead of exhausting the stack.
  public var maximumDepth: Int

  /// The default nesting limit, far beyond what real property lists use.
  public static let defaultMaximumDepth = 512

  public init(maximumDepth: Int = PropertyListReader.defaultMaximumDepth) {
    self.maximumDepth = maximumDepth
  }

  /// Reads a property list from `bytes`, detecting the binary or XML form.
  public func read(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListDocument {
    guard !bytes.isEmpty else { throw .empty }
    if Self.isBinary(bytes) {
      var reader = try BinaryPropertyListReader(bytes: bytes, maximumDepth: maximumDepth)
      let root = try reader.read()
      return PropertyListDocument(format: .binary, root: root, unpairedSurrogates: reader.unpairedSurrogates)
    }
    if Self.looksLikeXML(bytes) {
      var reader = XMLPropertyListReader(bytes: bytes, maximumDepth: maximumDepth)
      return PropertyListDocument(format: .xml, root: try reader.read())
    }
    let prefix = bytes.prefix(8).map { byte in
      let hex = String(byte, radix: 16)
      return hex.count == 1 ? "0" + hex : hex
    }
    throw .unrecognizedFormat(prefix: prefix.joined(separator: " "))
  }

  /// Whether `bytes` start with the binary property list header `bplist00`.
  public static func isBinary<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
    bytes.starts(with: [0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30])
  }

  /// Whether `bytes` plausibly hold an XML property list (after an optional byte-order mark and
  /// whitespace, they begin with `<?xml`, `<!DOCTYPE plist` or `<plist`).
  public static func looksLikeXML<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
    var rest = bytes.prefix(512)[...]
    if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
    rest = rest.drop(while: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
    return rest.starts(with: Array("<?xml".utf8)) || rest.starts(with: Array("<!DOCTYPE plist".utf8))
      || rest.starts(with: Array("<plist".utf8))
  }

  /// Whether `bytes` look like a property list of either form (cheap: only the start is examined).
  public static func looksLikePropertyList<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
    isBinary(bytes) || looksLikeXML(bytes)
  }
}
