/// A small dedicated reader for XML property lists (`<plist version="1.0">`).
///
/// It understands exactly the property-list vocabulary, the five predefined entities and numeric
/// character references. Document type declarations are skipped, never interpreted, so no entity
/// can expand and no file or URL is ever fetched. `<dict><key>CF$UID</key><integer>N</integer></dict>`
/// becomes ``PropertyListValue/uid(_:)``, as Apple's readers do.
struct XMLPropertyListReader {
  private let bytes: [UInt8]
  private var position = 0
  private let maximumDepth: Int

  init(bytes: [UInt8], maximumDepth: Int) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
  }

  /// Parses the whole document and returns its single top value.
  mutating func read() throws(PropertyListError) -> PropertyListValue {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
    try skipMisc(allowDeclarations: true)
    var tag = try readTag()
    var wrapped = false
    if tag.name == "plist" && !tag.isClosing {
      wrapped = true
      if tag.isEmpty { throw failure("the <plist> element is empty") }
      try skipMisc()
      tag = try readTag()
    }
    let value = try value(opening: tag, depth: 0)
    try skipMisc()
    if wrapped {
      let closing = try readTag()
      guard closing.isClosing, closing.name == "plist" else {
        throw failure("expected </plist> after the top value, found <\(closing.name)>")
      }
      try skipMisc()
    }
    guard position == bytes.count else { throw failure("unexpected content after the property list") }
    return value
  }

  // MARK: - Values

  private mutating func value(opening tag: Tag, depth: Int) throws(PropertyListError) -> PropertyListValue {
    guard !tag.isClosing else { throw failure("unexpected </\(tag.name)> where a value was expected") }
    guard depth <= maximumDepth else { throw .nestingTooDeep(limit: maximumDepth) }
    switch tag.name {
    case "dict":
      var entries = [PropertyListEntry]()
      if !tag.isEmpty {
        while let keyTag = try nextChild(of: "dict") {
          guard keyTag.name == "key", !keyTag.isClosing else {
            throw failure("expected <key> in a <dict>, found <\(keyTag.name)>")
          }
          let key = keyTag.isEmpty ? "" : try text(closing: "key")
          try skipMisc()
          let valueTag = try readTag()
          entries.append(PropertyListEntry(key: key, value: try value(opening: valueTag, depth: depth + 1)))
        }
      }
      if entries.count == 1, entries[0].key == "CF$UID" {
        switch entries[0].value {
        case .integer(let number) where number >= 0: return .uid(UInt64(number))
        case .unsignedInteger(let number): return .uid(number)
        default: break
        }
      }
      return .dictionary(entries)
    case "array":
      var elements = [PropertyListValue]()
      if !tag.isEmpty {
        while let next = try nextChild(of: "array") {
          elements.append(try value(opening: next, depth: depth + 1))
        }
      }
      return .array(elements)
    case "string":
      return .string(tag.isEmpty ? "" : try text(closing: "string"))
    case "true", "false":
      if !tag.isEmpty {
        let content = try text(closing: tag.name)
        guard content.allSatisfy(\.isWhitespace) else { throw failure("<\(tag.name)> must be empty") }
      }
      return .boolean(tag.name == "true")
    case "integer":
      let content = tag.isEmpty ? "" : try text(closing: "integer")
      return try integer(content)
    case "real":
      let content = Self.trimmed(tag.isEmpty ? "" : try text(closing: "real"))
      if let number = Double(content) { return .real(number) }
      switch content.lowercased() {
      case "nan": return .real(.nan)
      case "inf", "+inf", "infinity", "+infinity": return .real(.infinity)
      case "-inf", "-infinity": return .real(-.infinity)
      default: throw failure("\"\(content.prefix(40))\" is not a real number")
      }
    case "date":
      let content = tag.isEmpty ? "" : try text(closing: "date")
      guard let date = Self.date(Self.trimmed(content)) else {
        throw failure("\"\(content.prefix(40))\" is not a date of the form 2001-01-01T00:00:00Z")
      }
      return .date(date)
    case "data":
      let content = tag.isEmpty ? "" : try text(closing: "data")
      let compact = content.filter { !$0.isWhitespace }
      guard let data = Base64.decoded(compact) else { throw failure("<data> is not valid base64") }
      return .data(data)
    default:
      throw failure("unknown element <\(tag.name)>")
    }
  }

  private func integer(_ content: String) throws(PropertyListError) -> PropertyListValue {
    let trimmed = Self.trimmed(content)
    var digits = Substring(trimmed)
    var negative = false
    if digits.first == "-" || digits.first == "+" {
      negative = digits.first == "-"
      digits = digits.dropFirst()
    }
    var radix = 10
    if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
      radix = 16
      digits = digits.dropFirst(2)
    }
    guard !digits.isEmpty, let magnitude = UInt64(digits, radix: radix) else {
      throw failure("\"\(trimmed.prefix(40))\" is not an integer of at most 64 bits")
    }
    if negative {
      guard magnitude <= UInt64(Int64.max) + 1 else {
        throw failure("\"\(trimmed.prefix(40))\" is below the smallest 64-bit integer")
      }
      return .integer(magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude))
    }
    return magnitude > UInt64(Int64.max) ? .unsignedInteger(magnitude) : .integer(Int64(magnitude))
  }

  /// Parses `YYYY-MM-DDTHH:MM:SSZ` (the only form property lists write) into a date.
  static func date(_ text: String) -> ArchiveDate? {
    let fields = text.split(whereSeparator: { "-T:Z".contains($0) })
    guard text.hasSuffix("Z"), fields.count == 6 else { return nil }
    var numbers = [Int64]()
    for field in fields {
      guard let number = Int64(field) else { return nil }
      numbers.append(number)
    }
    let (year, month, day) = (numbers[0], numbers[1], numbers[2])
    guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(numbers[3]),
      (0...59).contains(numbers[4]), (0...60).contains(numbers[5]), abs(year) < 1_000_000
    else { return nil }
    let days = CivilTime(year: year, month: month, day: day).daysSince1970
    let seconds = Double(days) * 86_400 + Double(numbers[3] * 3600 + numbers[4] * 60 + numbers[5])
    return ArchiveDate(secondsSince1970: seconds)
  }

  /// `text` without leading and trailing whitespace and line breaks.
  static func trimmed(_ text: String) -> String {
    guard let first = text.firstIndex(where: { !$0.isWhitespace }),
      let last = text.lastIndex(where: { !$0.isWhitespace })
    else { return "" }
    return String(text[first...last])
  }

  // MARK: - Lexing

  private struct Tag {
    var name: String
    var isClosing: Bool
    var isEmpty: Bool
  }

  private func failure(_ reason: String) -> PropertyListError {
    var line = 1
    for byte in bytes[0..<min(position, bytes.count)] where byte == 0x0A { line += 1 }
    return .malformedXML(line: line, reason: reason)
  }

  private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

  private func starts(with literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard bytes.count - position >= count else { return false }
    return literal.withUTF8Buffer { literalBytes in
      var index = 0
      while index < count {
        if bytes[position + index] != literalBytes[index] { return false }
        index += 1
      }
      return true
    }
  }

  /// Moves past `terminator`, or fails naming `what` was left unterminated.
  private mutating func skip(past terminator: StaticString, what: String) throws(PropertyListError) {
    while position < bytes.count {
      if starts(with: terminator) {
        position += terminator.utf8CodeUnitCount
        return
      }
      position += 1
    }
    throw failure("unterminated \(what)")
  }

  /// Skips whitespace, comments and processing instructions (and, before the top element, the XML
  /// declaration and a document type declaration, which is skipped without being interpreted).
  private mutating func skipMisc(allowDeclarations: Bool = false) throws(PropertyListError) {
    while position < bytes.count {
      if isSpace(bytes[position]) {
        position += 1
      } else if starts(with: "<!--") {
        try skip(past: "-->", what: "comment")
      } else if starts(with: "<?") {
        try skip(past: "?>", what: "processing instruction")
      } else if allowDeclarations && starts(with: "<!DOCTYPE") {
        while position < bytes.count && bytes[position] != UInt8(ascii: ">") {
          if bytes[position] == UInt8(ascii: "[") {
            throw failure("document type declarations with an internal subset are not supported")
          }
          position += 1
        }
        guard position < bytes.count else { throw failure("unterminated <!DOCTYPE") }
        position += 1
      } else {
        return
      }
    }
  }

  /// The next element inside `<name>` (what lies between elements skipped), or `nil` at its
  /// closing `</name>`.
  private mutating func nextChild(of name: String) throws(PropertyListError) -> Tag? {
    try skipMisc()
    let next = try readTag()
    return next.isClosing && next.name == name ? nil : next
  }

  private mutating func readTag() throws(PropertyListError) -> Tag {
    guard position < bytes.count else { throw failure("the document ends where an element was expected") }
    guard bytes[position] == UInt8(ascii: "<") else {
      throw failure("expected an element, found text")
    }
    position += 1
    var isClosing = false
    if position < bytes.count && bytes[position] == UInt8(ascii: "/") {
      isClosing = true
      position += 1
    }
    let nameStart = position
    while position < bytes.count {
      let byte = bytes[position]
      if isSpace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") { break }
      position += 1
    }
    let name = String(decoding: bytes[nameStart..<position], as: UTF8.self)
    guard !name.isEmpty else { throw failure("an element has no name") }
    // Attributes are skipped; quoted values may contain '>' and '/'.
    var quote: UInt8? = nil
    var isEmpty = false
    while position < bytes.count {
      let byte = bytes[position]
      position += 1
      if let open = quote {
        if byte == open { quote = nil }
      } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
        quote = byte
      } else if byte == UInt8(ascii: ">") {
        return Tag(name: name, isClosing: isClosing, isEmpty: isEmpty)
      } else {
        isEmpty = byte == UInt8(ascii: "/")
        if !isEmpty && !isSpace(byte) && isClosing {
          throw failure("unexpected characters in </\(name)>")
        }
      }
    }
    throw failure("unterminated element <\(name)")
  }

  /// Reads character data up to `</name>`, decoding entities, character references and CDATA.
  private mutating func text(closing name: String) throws(PropertyListError) -> String {
    var output = [UInt8]()
    while true {
      guard position < bytes.count else { throw failure("unterminated <\(name)>") }
      let byte = bytes[position]
      if byte == UInt8(ascii: "<") {
        if starts(with: "<![CDATA[") {
          position += 9
          let start = position
          try skip(past: "]]>", what: "CDATA section")
          output.append(contentsOf: bytes[start..<(position - 3)])
        } else if starts(with: "<!--") {
          try skip(past: "-->", what: "comment")
        } else {
          let tag = try readTag()
          guard tag.isClosing, tag.name == name else {
            throw failure("expected </\(name)>, found <\(tag.isClosing ? "/" : "")\(tag.name)>")
          }
          break
        }
      } else if byte == UInt8(ascii: "&") {
        try entity(into: &output)
      } else {
        output.append(byte)
        position += 1
      }
    }
    guard let text = String(validating: output, as: UTF8.self) else {
      throw .invalidUTF8(line: lineNumber())
    }
    return text
  }

  private func lineNumber() -> Int {
    if case .malformedXML(let line, _) = failure("") { return line }
    return 1
  }

  private mutating func entity(into output: inout [UInt8]) throws(PropertyListError) {
    let start = position + 1
    var end = start
    while end < bytes.count && end - start < 12 && bytes[end] != UInt8(ascii: ";") { end += 1 }
    guard end < bytes.count, bytes[end] == UInt8(ascii: ";") else {
      throw failure("an '&' does not begin an entity; write &amp;")
    }
    let name = String(decoding: bytes[start..<end], as: UTF8.self)
    position = end + 1
    switch name {
    case "lt": output.append(UInt8(ascii: "<"))
    case "gt": output.append(UInt8(ascii: ">"))
    case "amp": output.append(UInt8(ascii: "&"))
    case "quot": output.append(UInt8(ascii: "\""))
    case "apos": output.append(UInt8(ascii: "'"))
    default:
      var digits = Substring(name)
      var radix = 10
      guard digits.first == "#" else {
        throw failure("unknown entity &\(name); (only the five predefined ones are read)")
      }
      digits = digits.dropFirst()
      if digits.first == "x" || digits.first == "X" {
        radix = 16
        digits = digits.dropFirst()
      }
      guard let code = UInt32(digits, radix: radix), let scalar = Unicode.Scalar(code), code != 0 else {
        throw failure("&\(name); is not a valid character reference")
      }
      output.append(contentsOf: Array(String(Character(scalar)).utf8))
    }
  }
}
