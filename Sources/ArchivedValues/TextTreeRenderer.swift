import PropertyList

extension Inspection {
  /// An indented tree for the terminal: a header line, any warnings and embedded property lists,
  /// then each top value with its contents indented two spaces per level.
  ///
  /// Objects the archive shares are labelled `@N` (their `$objects` index) where first shown, and
  /// later occurrences read `-> @N`; a reference back to an enclosing object reads
  /// `-> @N (cycle)`. Strings are quoted with control characters escaped.
  public func textTree() -> String {
    var output = ""
    let formatName = format == .binary ? "binary" : "XML"
    if isArchive {
      output +=
        archiver.map { "keyed archive by \(DisplayText.field($0))" } ?? "keyed archive without $archiver"
      output += version.map { " (version \($0))" } ?? " (no $version)"
      output += ", \(formatName) property list\n"
    } else if isPlainPropertyList {
      output += "\(formatName) property list (not a keyed archive)\n"
    } else {
      output += "\(formatName) property list"
      if let notArchiveReason { output += ", not a keyed archive: \(notArchiveReason)" }
      output += "\n"
    }
    for warning in warnings { output += "warning: \(DisplayText.escaped(warning.description))\n" }
    for (number, embedded) in embeddedPropertyLists.enumerated() {
      output += "embedded property list #\(number + 1): \(embedded.format == .binary ? "binary" : "XML"), "
      output += "\(embedded.data.count) bytes"
      if let object = embedded.object { output += ", in object \(object)" }
      if let key = embedded.key { output += " under \(DisplayText.field(key))" }
      output += "\n"
    }
    var renderer = TextTreeRenderer()
    for field in topValues {
      renderer.line(label: field.key, value: field.value, indent: 0)
    }
    output += renderer.output
    return output
  }
}

extension ArchivedValue {
  /// This value as an indented tree (see ``Inspection/textTree()``), starting with `label: `.
  public func textTree(label: String = "value") -> String {
    var renderer = TextTreeRenderer()
    renderer.line(label: label, value: self, indent: 0)
    return renderer.output
  }
}

/// Writes one line per value without recursing (see ``QueuedRenderer``).
struct TextTreeRenderer: QueuedRenderer {
  var output = ""

  var pending: [RenderPiece<Child>] = []

  /// A value whose line has its label written already, and the indentation of that line.
  typealias Child = (value: ArchivedValue, indent: Int)

  private static let indents = (0..<32).map { String(repeating: "  ", count: $0) }

  private mutating func indentation(_ level: Int) {
    emit(level < Self.indents.count ? Self.indents[level] : String(repeating: "  ", count: level))
  }

  private mutating func key(_ key: String) {
    if Format.isBare(key) { emit(key) } else { quoted(key) }
  }

  /// Writes `label: ` and `value`'s line at `indent`, then the lines of its children.
  mutating func line(label: String, value: ArchivedValue, indent: Int) {
    queueLine(label: label, value: value, indent: indent)
    drain()
  }

  /// Queues a child's line: its label, then its value.
  private mutating func queueLine(label: String, value: ArchivedValue, indent: Int) {
    indentation(indent)
    key(label)
    emit(": ")
    queue((value, indent: indent))
  }

  private mutating func queueLine(rawLabel: String, value: ArchivedValue, indent: Int) {
    indentation(indent)
    emit(rawLabel)
    emit(": ")
    queue((value, indent: indent))
  }

  /// Writes the rest of the line for `value` (after its label) and queues its children.
  mutating func expand(_ child: Child) {
    body(child.value, indent: child.indent)
  }

  private mutating func body(_ value: ArchivedValue, indent: Int) {
    switch value {
    case .null: emit("null\n")
    case .boolean(let flag): emit(flag ? "true\n" : "false\n")
    case .integer(let number):
      emit(String(number))
      emit("\n")
    case .unsignedInteger(let number):
      emit(String(number))
      emit("\n")
    case .real(let number):
      emit(Format.number(number))
      emit("\n")
    case .decimal(let decimal): emit("decimal \(decimal)\n")
    case .string(let text):
      quoted(text)
      emit("\n")
    case .data(let data):
      emit("data (\(data.count) bytes)")
      if !data.isEmpty { emit(" \(Format.hex(data, limit: 32))") }
      if let embedded = EmbeddedPropertyList(data, object: nil, key: nil) {
        emit(embedded.format == .binary ? " [binary property list]" : " [XML property list]")
      }
      emit("\n")
    case .date(let date): emit("date \(date.iso8601)\n")
    case .array(let elements):
      emit(elements.isEmpty ? "array (empty)\n" : "array (\(count(elements.count, "element")))\n")
      for (index, element) in elements.enumerated() {
        queueLine(rawLabel: "[\(index)]", value: element, indent: indent + 1)
      }
    case .set(let elements):
      emit(elements.isEmpty ? "set (empty)\n" : "set (\(count(elements.count, "element")))\n")
      for element in elements { queueLine(rawLabel: "-", value: element, indent: indent + 1) }
    case .orderedSet(let elements):
      emit(
        elements.isEmpty ? "ordered set (empty)\n" : "ordered set (\(count(elements.count, "element")))\n")
      for (index, element) in elements.enumerated() {
        queueLine(rawLabel: "[\(index)]", value: element, indent: indent + 1)
      }
    case .countedSet(let elements):
      emit(
        elements.isEmpty
          ? "counted set (empty)\n" : "counted set (\(count(elements.count, "distinct element")))\n")
      for element in elements {
        queueLine(rawLabel: "- \(element.count)×", value: element.value, indent: indent + 1)
      }
    case .dictionary(let entries):
      emit(
        entries.isEmpty
          ? "dictionary (empty)\n" : "dictionary (\(count(entries.count, "entry", "entries")))\n")
      for entry in entries {
        if case .string(let name) = entry.key {
          queueLine(label: name, value: entry.value, indent: indent + 1)
        } else {
          indentation(indent + 1)
          emit("key: ")
          queue((entry.key, indent: indent + 1))
          queueLine(rawLabel: "value", value: entry.value, indent: indent + 2)
        }
      }
    case .object(let object):
      emit(
        (object.classChain.isEmpty ? [object.className] : object.classChain).map(DisplayText.field).joined(
          separator: " : "))
      emit(object.fields.isEmpty ? " (no fields)\n" : "\n")
      for field in object.fields { queueLine(label: field.key, value: field.value, indent: indent + 1) }
    case .url(let url):
      emit("URL ")
      quoted(url.relative)
      if url.base != nil, let absolute = url.absoluteString {
        emit(" = ")
        quoted(absolute)
      }
      emit("\n")
      if let base = url.base { queueLine(rawLabel: "base", value: base, indent: indent + 1) }
    case .uuid(let uuid): emit("UUID \(uuid.uuidString)\n")
    case .structure(let structure): emit("\(structure.text)\n")
    case .typedValue(let typed):
      emit("NSValue \(DisplayText.field(typed.encoding)) ")
      var typedText = ""
      typed.value.text(into: &typedText)
      emit(typedText)
      emit("\n")
    case .color(let color):
      emit(color.text)
      emit("\n")
      for field in color.otherFields { queueLine(label: field.key, value: field.value, indent: indent + 1) }
    case .font(let font):
      emit(font.text)
      emit("\n")
      for field in font.otherFields { queueLine(label: field.key, value: field.value, indent: indent + 1) }
    case .attributedString(let string):
      emit("attributed string ")
      quoted(string.text)
      emit(" (\(count(string.runs.count, "run")))\n")
      for run in string.runs {
        queueLine(
          rawLabel: "\(run.location)..<\(run.location &+ run.length)", value: run.attributes,
          indent: indent + 1)
      }
    case .indexSet(let ranges):
      emit("index set ")
      emit(
        ranges.isEmpty
          ? "(empty)" : ranges.map { "\($0.location)..<\($0.location &+ $0.length)" }.joined(separator: ", "))
      emit("\n")
    case .indexPath(let indexes):
      emit("index path [\(indexes.map(String.init).joined(separator: ", "))]\n")
    case .shared(let shared):
      emit("@\(shared.id) ")
      queue((shared.value, indent: indent))
    case .reference(let reference):
      switch reference.kind {
      case .shared: emit("-> @\(reference.id)\n")
      case .cycle: emit("-> @\(reference.id) (cycle)\n")
      case .unresolved: emit("UID \(reference.id)\n")
      }
    }
  }

  private func count(_ number: Int, _ singular: String, _ plural: String? = nil) -> String {
    number == 1 ? "1 \(singular)" : "\(number) \(plural ?? singular + "s")"
  }
}
