import Foundation

extension Inspection {
  /// One line for a list row, such as `{buttonNumber: 1, title: "hi"}`, cut to `width` terminal
  /// columns (ending in `…` when cut). Wide characters count two columns; the line never holds a
  /// newline or control character. Only as much of the value as fits is ever formatted.
  public func summary(width: Int) -> String {
    if nesting > inPlaceNestingLimit {
      let root = root
      return withLargeStack { root.summary(width: width) }
    }
    return root.summary(width: width)
  }
}

extension ArchivedValue {
  /// This value on one line, cut to `width` terminal columns (see ``Inspection/summary(width:)``).
  public func summary(width: Int) -> String {
    guard width > 0 else { return "" }
    var writer = SummaryWriter(budget: width * 4 + 16)
    writer.write(self)
    return Format.truncated(writer.output, toColumns: width)
  }
}

/// Writes a compact one-line form and stops once it has written more than it could show.
struct SummaryWriter {
  var output = ""
  private var budget: Int

  init(budget: Int) { self.budget = budget }

  private var isFull: Bool { output.utf8.count > budget }

  private mutating func key(_ key: String) {
    if Format.isBare(key) { output.append(key) } else { Format.quoted(key, into: &output) }
  }

  private mutating func list(_ values: [ArchivedValue], open: String, close: String) {
    output.append(open)
    for (index, value) in values.enumerated() {
      if isFull { return }
      if index > 0 { output.append(", ") }
      write(value)
    }
    output.append(close)
  }

  mutating func write(_ value: ArchivedValue) {
    if isFull { return }
    switch value {
    case .null: output.append("null")
    case .boolean(let flag): output.append(flag ? "true" : "false")
    case .integer(let number): output.append(String(number))
    case .unsignedInteger(let number): output.append(String(number))
    case .real(let number): output.append(Format.number(number))
    case .string(let text):
      // Only the start of a long string can show.
      Format.quoted(text.utf8.count > budget ? String(text.prefix(budget)) : text, into: &output)
    case .data(let data): output.append("<\(data.count) bytes>")
    case .date(let date): output.append(Format.date(date))
    case .array(let values): list(values, open: "[", close: "]")
    case .set(let values): list(values, open: "set[", close: "]")
    case .orderedSet(let values): list(values, open: "orderedSet[", close: "]")
    case .countedSet(let elements):
      output.append("countedSet[")
      for (index, element) in elements.enumerated() {
        if isFull { return }
        if index > 0 { output.append(", ") }
        write(element.value)
        output.append(" ×\(element.count)")
      }
      output.append("]")
    case .dictionary(let entries):
      output.append("{")
      for (index, entry) in entries.enumerated() {
        if isFull { return }
        if index > 0 { output.append(", ") }
        if case .string(let name) = entry.key { key(name) } else { write(entry.key) }
        output.append(": ")
        write(entry.value)
      }
      output.append("}")
    case .object(let object):
      output.append(DisplayText.field(object.className))
      output.append("{")
      for (index, field) in object.fields.enumerated() {
        if isFull { return }
        if index > 0 { output.append(", ") }
        key(field.key)
        output.append(": ")
        write(field.value)
      }
      output.append("}")
    case .url(let url):
      output.append("URL(")
      Format.quoted(url.absoluteString ?? url.relative, into: &output)
      output.append(")")
    case .uuid(let uuid): output.append("UUID(\(uuid.uuidString))")
    case .structure(let structure): output.append(structure.text)
    case .typedValue(let typed):
      output.append("NSValue(")
      typed.value.text(into: &output, limit: budget)
      output.append(")")
    case .color(let color):
      output.append(color.text)
    case .font(let font):
      output.append(font.text)
    case .attributedString(let attributed):
      output.append("attributed")
      write(.string(attributed.text))
    case .indexSet(let ranges):
      output.append("indexSet[")
      for (index, range) in ranges.enumerated() {
        if isFull { return }
        if index > 0 { output.append(", ") }
        output.append("\(range.location)..<\(range.location &+ range.length)")
      }
      output.append("]")
    case .indexPath(let indexes):
      output.append("indexPath[")
      for (index, element) in indexes.enumerated() {
        if isFull { return }
        if index > 0 { output.append(", ") }
        output.append(String(element))
      }
      output.append("]")
    case .shared(let shared): write(shared.value)
    case .reference(let reference):
      output.append(reference.kind == .unresolved ? "UID(\(reference.id))" : "@\(reference.id)")
    }
  }
}
