import TerminalScreen

extension Inspection {
  /// One line for a list row, such as `{buttonNumber: 1, title: "hi"}`, cut to `width` terminal
  /// columns (ending in `…` when cut). Wide characters count two columns; the line never holds a
  /// newline or control character. Only as much of the value as fits is ever formatted.
  ///
  /// A damaged archive, shown as its property list, starts with ``damagedPrefix``, so that a row
  /// (the dashboard's tree, `dump`, a bridge's payload) does not pass its `$objects` off as the
  /// message; a plain property list (not meant as an archive) is a value like any other.
  public func summary(width: Int) -> String {
    guard notArchiveReason != nil, !isPlainPropertyList else { return root.summary(width: width) }
    let prefix = Self.damagedPrefix
    let prefixWidth = TerminalWidth.columns(of: prefix)
    guard width > prefixWidth else { return TerminalWidth.truncated(prefix, toColumns: width) }
    return prefix + root.summary(width: width - prefixWidth)
  }

  /// What a damaged archive's summary starts with.
  public static let damagedPrefix = "(damaged archive) "
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

  /// `open`, as many of `items` as can show, each as `write` writes it with `, ` between, then
  /// `close`.
  private mutating func list<Items: Collection>(
    _ items: Items, open: String, close: String, _ write: (inout Self, Items.Element) -> Void
  ) {
    emit(open)
    for (index, item) in items.prefix(room).enumerated() {
      if index > 0 { emit(", ") }
      write(&self, item)
    }
    emit(close)
  }

  private mutating func list(_ values: [ArchivedValue], open: String, close: String) {
    list(values, open: open, close: close) { $0.queue($1) }
  }

  /// Writes `value`'s own text and queues its children.
  mutating func expand(_ value: ArchivedValue) {
    switch value {
    case .null: emit("null")
    case .boolean(let flag): emit(flag ? "true" : "false")
    case .integer(let number): emit(String(number))
    case .unsignedInteger(let number): emit(String(number))
    case .real(let number): emit(Format.number(number))
    case .decimal(let decimal): emit(decimal.description)
    case .string(let text):
      // Only the start of a long string can show.
      quoted(text.utf8.count > budget ? String(text.prefix(budget)) : text)
    case .data(let data): emit("<\(data.count) bytes>")
    case .date(let date): emit(date.iso8601)
    case .array(let values): list(values, open: "[", close: "]")
    case .set(let values): list(values, open: "set[", close: "]")
    case .orderedSet(let values): list(values, open: "orderedSet[", close: "]")
    case .countedSet(let elements):
      list(elements, open: "countedSet[", close: "]") { writer, element in
        writer.queue(element.value)
        writer.emit(" ×\(element.count)")
      }
    case .dictionary(let entries):
      list(entries, open: "{", close: "}") { writer, entry in
        if case .string(let name) = entry.key { writer.key(name) } else { writer.queue(entry.key) }
        writer.emit(": ")
        writer.queue(entry.value)
      }
    case .object(let object):
      emit(DisplayText.field(object.className))
      list(object.fields, open: "{", close: "}") { writer, field in
        writer.key(field.key)
        writer.emit(": ")
        writer.queue(field.value)
      }
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
      list(ranges, open: "indexSet[", close: "]") {
        $0.emit("\($1.location)..<\($1.location &+ $1.length)")
      }
    case .indexPath(let indexes): list(indexes, open: "indexPath[", close: "]") { $0.emit(String($1)) }
    case .shared(let shared): queue(shared.value)
    case .reference(let reference):
      emit(reference.kind == .unresolved ? "UID(\(reference.id))" : "@\(reference.id)")
    }
  }
}
