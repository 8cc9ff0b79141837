import Foundation

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
    if isPlainASCII(text) {
      output.append("\"")
      output.append(text)
      output.append("\"")
      return
    }
    output.append(DisplayText.jsonString(text))
  }

  /// Whether `text` is printable ASCII without quotes or backslashes, so it needs no escaping.
  static func isPlainASCII(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
      for byte in bytes where byte < 0x20 || byte >= 0x7F || byte == 0x22 || byte == 0x5C { return false }
      return true
    }
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
  static func hex(_ data: Data, limit: Int) -> String {
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

  /// RFC 3339 / ISO 8601 in UTC, with fractional seconds only when there are some.
  static func date(_ date: Date) -> String {
    let seconds = date.timeIntervalSince1970
    guard seconds.isFinite, abs(seconds) < 1e14 else {
      return "invalid date (\(date.timeIntervalSinceReferenceDate) s since 2001)"
    }
    let whole = seconds.rounded(.down)
    var fraction = seconds - whole
    var total = Int64(whole)
    var days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
    var secondOfDay = total - days * 86_400
    // Round the fraction to milliseconds, carrying into the second if needed.
    var millis = Int64((fraction * 1000).rounded())
    if millis == 1000 {
      millis = 0
      secondOfDay += 1
      if secondOfDay == 86_400 {
        secondOfDay = 0
        days += 1
      }
    }
    fraction = 0
    total = 0
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    var text = year < 0 ? "-" : ""
    text += padded(abs(year), 4) + "-" + padded(month, 2) + "-" + padded(day, 2)
    text += "T" + padded(secondOfDay / 3600, 2) + ":" + padded(secondOfDay / 60 % 60, 2) + ":"
    text += padded(secondOfDay % 60, 2)
    if millis > 0 { text += "." + padded(millis, 3) }
    return text + "Z"
  }

  private static func padded(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
  }

  /// Terminal columns a scalar takes: 2 for East Asian wide and most emoji, 0 for combining marks
  /// and joiners, 1 otherwise. Independent of the process locale.
  static func columns(_ scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    switch value {
    case 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F, 0x20D0...0x20FF: return 0
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
      0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
      0x1F900...0x1F9FF, 0x20000...0x3FFFD:
      return 2
    default: return 1
    }
  }

  /// Total terminal columns of `text`.
  static func columns(of text: String) -> Int {
    var total = 0
    for scalar in text.unicodeScalars { total += columns(scalar) }
    return total
  }

  /// `text` cut to at most `width` columns, ending in `…` when cut.
  static func truncated(_ text: String, toColumns width: Int) -> String {
    guard width > 0 else { return "" }
    if columns(of: text) <= width { return text }
    var result = String.UnicodeScalarView()
    var used = 0
    for scalar in text.unicodeScalars {
      let needed = columns(scalar)
      if used + needed > width - 1 { break }
      result.append(scalar)
      used += needed
    }
    return String(result) + "…"
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

extension ArchivedURL {
  /// The absolute URL when the base is a plain chain of URLs, else `nil`.
  var absoluteString: String? {
    guard let base else { return relative }
    var baseValue = base
    if case .shared(let shared) = base { baseValue = shared.value }
    guard case .url(let baseURL) = baseValue, let baseString = baseURL.absoluteString,
      let resolvedBase = URL(string: baseString), let url = URL(string: relative, relativeTo: resolvedBase)
    else { return nil }
    return url.absoluteString
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
      output.append(Format.truncated(writer.output, toColumns: 80))
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
