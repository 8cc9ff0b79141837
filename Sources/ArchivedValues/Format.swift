import TerminalScreen

/// Small formatting helpers shared by the renderers; none of them goes through `NSString` or
/// `String(format:)`, which are slow on Linux.
enum Format {
  /// `text` in double quotes, escaped by ``DisplayText`` (text strength): no string from a file
  /// can move the terminal's cursor, reorder text or hide a character.
  static func quoted(_ text: String, into output: inout String) {
    output.append("\"")
    DisplayText.append(text, to: &output, quotes: true, strict: false)
    output.append("\"")
  }

  /// `text` as a JSON string literal, escaped by ``DisplayText`` as every JSON output is.
  static func json(_ text: String, into output: inout String) {
    if DisplayText.isPlainASCII(text, quotes: true) {
      output.append("\"")
      output.append(text)
      output.append("\"")
      return
    }
    output.append(DisplayText.jsonString(text))
  }

  /// Whether a dictionary key or field name can be shown without quotes.
  static func isBare(_ key: String) -> Bool {
    guard !key.isEmpty, key.utf8.count <= 64 else { return false }
    return key.utf8.allSatisfy { byte in
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        || byte == 0x5F || byte == 0x2E || byte == 0x24 || byte == 0x2D
    }
  }

  /// A double as Swift prints it (shortest form that reads back exactly); whole numbers within
  /// ±2^53 lose their `.0` when `compact` is set.
  static func number(_ value: Double, compact: Bool = false) -> String {
    if compact, value.isFinite, value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
      return String(Int64(value))
    }
    return value.description
  }

  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  /// Lowercase hex of up to `limit` bytes, in groups of four, with `…` when cut.
  static func hex(_ data: [UInt8], limit: Int) -> String {
    var bytes = [UInt8]()
    var count = 0
    for byte in data.prefix(limit) {
      if count > 0 && count % 4 == 0 { bytes.append(0x20) }
      bytes.append(hexDigits[Int(byte >> 4)])
      bytes.append(hexDigits[Int(byte & 0x0F)])
      count += 1
    }
    var text = String(decoding: bytes, as: UTF8.self)
    if data.count > limit { text.append("…") }
    return text
  }
}

extension ArchivedStructure {
  /// `range {location 1, length 2}` and the like.
  var text: String {
    switch self {
    case .point(let x, let y):
      return "point {x \(Format.number(x, compact: true)), y \(Format.number(y, compact: true))}"
    case .size(let width, let height):
      return
        "size {width \(Format.number(width, compact: true)), height \(Format.number(height, compact: true))}"
    case .rect(let x, let y, let width, let height):
      return "rect {x \(Format.number(x, compact: true)), y \(Format.number(y, compact: true)), "
        + "width \(Format.number(width, compact: true)), height \(Format.number(height, compact: true))}"
    case .range(let location, let length):
      return "range {location \(location), length \(length)}"
    case .edgeInsets(let top, let left, let bottom, let right):
      return
        "edge insets {top \(Format.number(top, compact: true)), left \(Format.number(left, compact: true)), "
        + "bottom \(Format.number(bottom, compact: true)), right \(Format.number(right, compact: true))}"
    }
  }
}

extension TypedElement {
  /// `[1, 2, 3]`, `CGPoint {x 1.5, y 2}`, `{1, 2}` and the like, on one line; once `output`
  /// holds more than `limit` bytes the rest is left out (a summary shows only a line's worth).
  func text(into output: inout String, limit: Int = .max) {
    if output.utf8.count > limit { return }
    switch self {
    case .signed(let number): output.append(String(number))
    case .unsigned(let number): output.append(String(number))
    case .real(let number): output.append(Format.number(number, compact: true))
    case .boolean(let flag): output.append(flag ? "true" : "false")
    case .text(let text):
      if let text { Format.quoted(text, into: &output) } else { output.append("null") }
    case .object(let value):
      var writer = SummaryWriter(budget: 256)
      writer.write(value)
      output.append(TerminalWidth.truncated(writer.output, toColumns: 80))
    case .pointer(let address): output.append("pointer 0x\(String(address, radix: 16))")
    case .array(let elements):
      output.append("[")
      for (index, element) in elements.enumerated() {
        if output.utf8.count > limit { return }
        if index > 0 { output.append(", ") }
        element.text(into: &output, limit: limit)
      }
      output.append("]")
    case .structure(let name, let fields, let names):
      if let name {
        output.append(DisplayText.field(name))
        output.append(" ")
      }
      output.append("{")
      for (index, field) in fields.enumerated() {
        if output.utf8.count > limit { return }
        if index > 0 { output.append(", ") }
        if let names, index < names.count, !names[index].isEmpty {
          output.append(DisplayText.field(names[index]))
          output.append(" ")
        }
        field.text(into: &output, limit: limit)
      }
      output.append("}")
    case .opaque(let encoding, let bytes):
      output.append("\(DisplayText.field(encoding)) (\(bytes.count) bytes)")
    }
  }
}

extension ArchivedColor {
  /// `color RGB 1 0.5 0, alpha 1, #ff8000 (calibrated RGB)` and the like.
  var text: String {
    var text = "color"
    switch model {
    case .rgb: text += " RGB"
    case .white: text += " white"
    case .cmyk: text += " CMYK"
    case .named: text += " named"
    case .other: break
    }
    for component in components { text += " " + Format.number(component, compact: true) }
    if let catalog { text += " " + DisplayText.quoted(catalog) }
    if let name { text += " " + DisplayText.quoted(name) }
    if let alpha { text += ", alpha " + Format.number(alpha, compact: true) }
    if let hex { text += ", " + hex }
    if let space { text += " (\(space))" }
    return text
  }
}

extension ArchivedFont {
  /// `font "Helvetica-Bold" 12 pt, traits 0x2` and the like.
  var text: String {
    var parts = [String]()
    if let name { parts.append(DisplayText.quoted(name)) }
    if let size { parts.append(Format.number(size, compact: true) + " pt") }
    var text = "font " + parts.joined(separator: " ")
    if let family { text += ", family " + DisplayText.quoted(family) }
    if let traits { text += ", traits 0x" + String(UInt64(bitPattern: traits), radix: 16) }
    if isSystemFont == true { text += ", system font" }
    return text
  }
}
