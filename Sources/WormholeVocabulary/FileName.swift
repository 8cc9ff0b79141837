import KeyedArchive

/// A name as the file system holds it: bytes, not text.
///
/// Linux file names are byte strings. Two names are the same file only when their bytes are the
/// same, so a `FileName` compares, hashes and sorts by its exact bytes: `é` (U+00E9) and `e`
/// followed by U+0301 are two names here, although Swift's `String` calls them equal. A name
/// that is not valid UTF-8 is kept as it is and shown with its undecodable bytes escaped.
///
/// Used for one directory entry and for whole paths alike. Names that are valid UTF-8 (almost
/// all) are stored as a `String`, so short ones take no allocation.
public struct FileName: Sendable, Hashable, Comparable {
  private enum Storage: Sendable {
    case text(String)
    case bytes([UInt8])
  }

  private let storage: Storage

  /// The name whose bytes are `text`'s UTF-8, exactly as written (no normalization).
  public init(_ text: String) { storage = .text(text) }

  /// The name made of exactly `bytes`.
  public init(bytes: some Collection<UInt8>) {
    if let text = String(validating: bytes, as: UTF8.self) {
      storage = .text(text)
    } else {
      storage = .bytes(Array(bytes))
    }
  }

  /// The name's bytes.
  public var bytes: [UInt8] {
    switch storage {
    case .text(let text): return Array(text.utf8)
    case .bytes(let bytes): return bytes
    }
  }

  /// The name as text, or `nil` when its bytes are not valid UTF-8.
  public var string: String? {
    if case .text(let text) = storage { return text }
    return nil
  }

  /// Whether the name is valid UTF-8.
  public var isText: Bool { string != nil }

  /// The number of bytes.
  public var byteCount: Int {
    switch storage {
    case .text(let text): return text.utf8.count
    case .bytes(let bytes): return bytes.count
    }
  }

  /// Runs `body` over the name's bytes without copying them where possible.
  public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
    switch storage {
    case .text(var text): return try text.withUTF8(body)
    case .bytes(let bytes): return try bytes.withUnsafeBufferPointer(body)
    }
  }

  /// The name as text for a person: valid UTF-8 as it is, each undecodable byte as `\x{ff}`.
  /// Not yet escaped for a terminal: pass it through ``DisplayText`` (``displayField`` does).
  public var lossyText: String {
    if case .text(let text) = storage { return text }
    var out = ""
    var rest = bytes[...]
    while !rest.isEmpty {
      // The longest valid prefix, then one undecodable byte.
      var end = rest.endIndex
      while end > rest.startIndex, String(validating: rest[rest.startIndex..<end], as: UTF8.self) == nil {
        end -= 1
      }
      if end > rest.startIndex {
        out += String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
        rest = rest[end...]
      } else {
        out += "\\x{" + String(rest[rest.startIndex], radix: 16) + "}"
        rest = rest.dropFirst()
      }
    }
    return out
  }

  /// One column of a line for a terminal: plain words as they are, anything else quoted with
  /// controls, separators, bidirectional controls and undecodable bytes escaped.
  public var displayField: String {
    switch storage {
    case .text(let text): return DisplayText.field(text)
    case .bytes: return DisplayText.quoted(lossyText)
    }
  }

  public static func == (left: FileName, right: FileName) -> Bool {
    switch (left.storage, right.storage) {
    case (.text(let a), .text(let b)): return a.utf8.elementsEqual(b.utf8)
    case (.bytes(let a), .bytes(let b)): return a == b
    default: return false  // valid and invalid UTF-8 never share bytes
    }
  }

  public func hash(into hasher: inout Hasher) {
    withBytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// Byte order, as `memcmp` and `ls` in the C locale sort.
  public static func < (left: FileName, right: FileName) -> Bool {
    left.withBytes { a in right.withBytes { b in a.lexicographicallyPrecedes(b) } }
  }

  /// Whether the name ends with `suffix`'s bytes (not grapheme clusters: `x\u{600}.archive`
  /// ends with `.archive` although its last grapheme is `\u{600}.`).
  public func hasSuffix(_ suffix: String) -> Bool {
    withBytes { name in
      let tail = Array(suffix.utf8)
      return name.count >= tail.count && name[(name.count - tail.count)...].elementsEqual(tail)
    }
  }

  /// The name without its last `count` bytes.
  public func droppingLast(_ count: Int) -> FileName {
    withBytes { FileName(bytes: $0.dropLast(count)) }
  }

  /// `self + "/" + name`, for paths.
  public func appending(_ name: FileName) -> FileName {
    FileName(bytes: bytes + [UInt8(ascii: "/")] + name.bytes)
  }
}

extension FileName: CustomStringConvertible {
  /// ``displayField``.
  public var description: String { displayField }
}

extension FileName: ExpressibleByStringLiteral {
  public init(stringLiteral value: String) { self.init(value) }
}
