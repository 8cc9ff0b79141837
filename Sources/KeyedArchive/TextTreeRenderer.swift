import Foundation
import PropertyList

extension Inspection {
  /// An indented tree for the terminal: a header line, any warnings and embedded property lists,
  /// then each top value with its contents indented two spaces per level.
  ///
  /// Objects the archive shares are labelled `@N` (their `$objects` index) where first shown, and
  /// later occurrences read `-> @N`; a reference back to an enclosing object reads
  /// `-> @N (cycle)`. Strings are quoted with control characters escaped.
  public func textTree() -> String {
    if nesting > inPlaceNestingLimit {
      let inspection = self
      return withLargeStack { inspection.textTreeInPlace() }
    }
    return textTreeInPlace()
  }

  private func textTreeInPlace() -> String {
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

/// Writes one line per value and recurses into containers; the value tree's depth is bounded by
/// the decoder's nesting limit, so the recursion is too.
struct TextTreeRenderer {
  var output = ""

  private static let indents = (0..<32).map { String(repeating: "  ", count: $0) }

  private mutating func indentation(_ level: Int) {
    output.append(level < Self.indents.count ? Self.indents[level] : String(repeating: "  ", count: level))
  }

  private mutating func key(_ key: String) {
    if Format.isBare(key) { output.append(key) } else { Format.quoted(key, into: &output) }
  }

  mutating func line(label: String, value: ArchivedValue, indent: Int) {
    indentation(indent)
    key(label)
    output.append(": ")
    body(value, indent: indent)
  }

  private mutating func line(rawLabel: String, value: ArchivedValue, indent: Int) {
    indentation(indent)
    output.append(rawLabel)
    output.append(": ")
    body(value, indent: indent)
  }

  /// Writes the rest of the line for `value` (after its label), then its children.
  private mutating func body(_ value: ArchivedValue, indent: Int) {
    switch value {
    case .null: output.append("null\n")
    case .boolean(let flag): output.append(flag ? "true\n" : "false\n")
    case .integer(let number):
      output.append(String(number))
      output.append("\n")
    case .unsignedInteger(let number):
      output.append(String(number))
      output.append("\n")
    case .real(let number):
      output.append(Format.number(number))
      output.append("\n")
    case .string(let text):
      Format.quoted(text, into: &output)
      output.append("\n")
    case .data(let data):
      output.append("data (\(data.count) bytes)")
      if !data.isEmpty { output.append(" \(Format.hex(data, limit: 32))") }
      if data.count >= 8, PropertyListReader.looksLikePropertyList(data) {
        output.append(PropertyListReader.isBinary(data) ? " [binary property list]" : " [XML property list]")
      }
      output.append("\n")
    case .date(let date): output.append("date \(Format.date(date))\n")
    case .array(let elements):
      output.append(elements.isEmpty ? "array (empty)\n" : "array (\(count(elements.count, "element")))\n")
      for (index, element) in elements.enumerated() {
        line(rawLabel: "[\(index)]", value: element, indent: indent + 1)
      }
    case .set(let elements):
      output.append(elements.isEmpty ? "set (empty)\n" : "set (\(count(elements.count, "element")))\n")
      for element in elements { line(rawLabel: "-", value: element, indent: indent + 1) }
    case .orderedSet(let elements):
      output.append(
        elements.isEmpty ? "ordered set (empty)\n" : "ordered set (\(count(elements.count, "element")))\n")
      for (index, element) in elements.enumerated() {
        line(rawLabel: "[\(index)]", value: element, indent: indent + 1)
      }
    case .countedSet(let elements):
      output.append(
        elements.isEmpty
          ? "counted set (empty)\n" : "counted set (\(count(elements.count, "distinct element")))\n")
      for element in elements {
        line(rawLabel: "- \(element.count)×", value: element.value, indent: indent + 1)
      }
    case .dictionary(let entries):
      output.append(
        entries.isEmpty
          ? "dictionary (empty)\n" : "dictionary (\(count(entries.count, "entry", "entries")))\n")
      for entry in entries {
        if case .string(let name) = entry.key {
          line(label: name, value: entry.value, indent: indent + 1)
        } else {
          indentation(indent + 1)
          output.append("key: ")
          body(entry.key, indent: indent + 1)
          line(rawLabel: "value", value: entry.value, indent: indent + 2)
        }
      }
    case .object(let object):
      output.append(
        (object.classChain.isEmpty ? [object.className] : object.classChain).map(DisplayText.field).joined(
          separator: " : "))
      output.append(object.fields.isEmpty ? " (no fields)\n" : "\n")
      for field in object.fields { line(label: field.key, value: field.value, indent: indent + 1) }
    case .url(let url):
      output.append("URL ")
      Format.quoted(url.relative, into: &output)
      if url.base != nil, let absolute = url.absoluteString {
        output.append(" = ")
        Format.quoted(absolute, into: &output)
      }
      output.append("\n")
      if let base = url.base { line(rawLabel: "base", value: base, indent: indent + 1) }
    case .uuid(let uuid): output.append("UUID \(uuid.uuidString)\n")
    case .structure(let structure): output.append("\(structure.text)\n")
    case .typedValue(let typed):
      output.append("NSValue \(DisplayText.field(typed.encoding)) ")
      typed.value.text(into: &output)
      output.append("\n")
    case .color(let color):
      output.append(color.text)
      output.append("\n")
      for field in color.otherFields { line(label: field.key, value: field.value, indent: indent + 1) }
    case .font(let font):
      output.append(font.text)
      output.append("\n")
      for field in font.otherFields { line(label: field.key, value: field.value, indent: indent + 1) }
    case .attributedString(let string):
      output.append("attributed string ")
      Format.quoted(string.text, into: &output)
      output.append(" (\(count(string.runs.count, "run")))\n")
      for run in string.runs {
        line(
          rawLabel: "\(run.location)..<\(run.location &+ run.length)", value: run.attributes,
          indent: indent + 1)
      }
    case .indexSet(let ranges):
      output.append("index set ")
      output.append(
        ranges.isEmpty
          ? "(empty)" : ranges.map { "\($0.location)..<\($0.location &+ $0.length)" }.joined(separator: ", "))
      output.append("\n")
    case .indexPath(let indexes):
      output.append("index path [\(indexes.map(String.init).joined(separator: ", "))]\n")
    case .shared(let shared):
      output.append("@\(shared.id) ")
      body(shared.value, indent: indent)
    case .reference(let reference):
      switch reference.kind {
      case .shared: output.append("-> @\(reference.id)\n")
      case .cycle: output.append("-> @\(reference.id) (cycle)\n")
      case .unresolved: output.append("UID \(reference.id)\n")
      }
    }
  }

  private func count(_ number: Int, _ singular: String, _ plural: String? = nil) -> String {
    number == 1 ? "1 \(singular)" : "\(number) \(plural ?? singular + "s")"
  }
}
