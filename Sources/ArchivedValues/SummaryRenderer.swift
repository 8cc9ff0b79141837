import TerminalScreen

extension Inspection {
  /// One line for a list row, such as `{buttonNumber: 1, title: "hi"}`, cut to `width` terminal
  /// columns (ending in `…` when cut). Wide characters count two columns; the line never holds a
  /// newline or control character. Only as much of the value as fits is ever formatted.
  public func summary(width: Int) -> String { root.summary(width: width) }
}

extension ArchivedValue {
  /// This value on one line, cut to `width` terminal columns (see ``Inspection/summary(width:)``).
  public func summary(width: Int) -> String {
    guard width > 0 else { return "" }
    var writer = SummaryWriter(budget: width * 4 + 16)
    writer.write(self)
    return TerminalWidth.truncated(writer.output, toColumns: width)
  }
}

/// Writes a compact one-line form and stops once it has written more than it could show.
///
/// It does not recurse (see ``QueuedRenderer``).
struct SummaryWriter: QueuedRenderer {
  var output = ""
  private var budget: Int

  var pending: [RenderPiece<ArchivedValue>] = []

  init(budget: Int) { self.budget = budget }

  var isFull: Bool { output.utf8.count > budget }

  /// How many elements of a collection can still show: each takes at least a byte, so no more
  /// than this are ever queued, however long the collection.
  private var room: Int { max(budget - output.utf8.count, 0) + 1 }

  /// Appends `value`'s one-line form to ``output``, stopping once it is more than fits.
  mutating func write(_ value: ArchivedValue) { render(value) }

  private mutating func key(_ key: String) {
    if Format.isBare(key) { emit(key) } else { quoted(key) }
  }

  private mutating func list(_ values: [ArchivedValue], open: String, close: String) {
    emit(open)
    for (index, value) in values.prefix(room).enumerated() {
      if index > 0 { emit(", ") }
      queue(value)
    }
    emit(close)
  }

  /// Writes `value`'s own text and queues its children.
  mutating func expand(_ value: ArchivedValue) {
    switch value {
    case .null: emit("null")
    case .boolean(let flag): emit(flag ? "true" : "false")
    case .integer(let number): emit(String(number))
    case .unsignedInteger(let number): emit(String(number))
    case .real(let number): emit(Format.number(number))
    case .string(let text):
      // Only the start of a long string can show.
      quoted(text.utf8.count > budget ? String(text.prefix(budget)) : text)
    case .data(let data): emit("<\(data.count) bytes>")
    case .date(let date): emit(date.iso8601)
    case .array(let values): list(values, open: "[", close: "]")
    case .set(let values): list(values, open: "set[", close: "]")
    case .orderedSet(let values): list(values, open: "orderedSet[", close: "]")
    case .countedSet(let elements):
      emit("countedSet[")
      for (index, element) in elements.prefix(room).enumerated() {
        if index > 0 { emit(", ") }
        queue(element.value)
        emit(" ×\(element.count)")
      }
      emit("]")
    case .dictionary(let entries):
      emit("{")
      for (index, entry) in entries.prefix(room).enumerated() {
        if index > 0 { emit(", ") }
        if case .string(let name) = entry.key { key(name) } else { queue(entry.key) }
        emit(": ")
        queue(entry.value)
      }
      emit("}")
    case .object(let object):
      emit(DisplayText.field(object.className))
      emit("{")
      for (index, field) in object.fields.prefix(room).enumerated() {
        if index > 0 { emit(", ") }
        key(field.key)
        emit(": ")
        queue(field.value)
      }
      emit("}")
    case .url(let url):
      emit("URL(")
      quoted(url.absoluteString ?? url.relative)
      emit(")")
    case .uuid(let uuid): emit("UUID(\(uuid.uuidString))")
    case .structure(let structure): emit(structure.text)
    case .typedValue(let typed):
      emit("NSValue(")
      var typedText = ""
      typed.value.text(into: &typedText, limit: budget)
      emit(typedText)
      emit(")")
    case .color(let color):
      emit(color.text)
    case .font(let font):
      emit(font.text)
    case .attributedString(let attributed):
      emit("attributed")
      queue(.string(attributed.text))
    case .indexSet(let ranges):
      emit("indexSet[")
      for (index, range) in ranges.prefix(room).enumerated() {
        if index > 0 { emit(", ") }
        emit("\(range.location)..<\(range.location &+ range.length)")
      }
      emit("]")
    case .indexPath(let indexes):
      emit("indexPath[")
      for (index, element) in indexes.prefix(room).enumerated() {
        if index > 0 { emit(", ") }
        emit(String(element))
      }
      emit("]")
    case .shared(let shared): queue(shared.value)
    case .reference(let reference):
      emit(reference.kind == .unresolved ? "UID(\(reference.id))" : "@\(reference.id)")
    }
  }
}
