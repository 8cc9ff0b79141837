import Foundation
import PropertyList

extension Inspection {
  /// JSON for scripts: an envelope object with `format`, `archiver` and `version` (as found, or
  /// `null`), `top` (one member per `$top` key, `root` first, or `plist` for a property list that
  /// is not an archive), `isArchive`, `plainPropertyList`, `notArchiveReason`, `warnings` (each
  /// `{"kind", "object", "message"}`) and `embedded`.
  ///
  /// Values that JSON can hold are plain JSON (strings, numbers, booleans, `null`, arrays, and
  /// objects for dictionaries with string keys). Everything else is an object with a `"$type"`
  /// member; see ``ArchivedValue/json()`` for the tags.
  public func json() -> String {
    if nesting > inPlaceNestingLimit {
      let inspection = self
      return withLargeStack { inspection.jsonInPlace() }
    }
    return jsonInPlace()
  }

  private func jsonInPlace() -> String {
    var writer = JSONWriter()
    writer.output.append("{\"format\":\"\(format.rawValue)\",\"archiver\":")
    if let archiver { Format.json(archiver, into: &writer.output) } else { writer.output.append("null") }
    writer.output.append(",\"version\":")
    writer.output.append(version.map(String.init) ?? "null")
    writer.output.append(",\"top\":{")
    for (index, field) in topValues.enumerated() {
      if index > 0 { writer.output.append(",") }
      Format.json(field.key, into: &writer.output)
      writer.output.append(":")
      writer.write(field.value)
    }
    writer.output.append("},\"isArchive\":\(isArchive),\"plainPropertyList\":\(isPlainPropertyList)")
    writer.output.append(",\"notArchiveReason\":")
    if let notArchiveReason {
      Format.json(notArchiveReason.description, into: &writer.output)
    } else {
      writer.output.append("null")
    }
    writer.output.append(",\"warnings\":[")
    for (index, warning) in warnings.enumerated() {
      if index > 0 { writer.output.append(",") }
      writer.output.append("{\"kind\":\"\(warning.kind.rawValue)\",\"object\":")
      writer.output.append(warning.object.map(String.init) ?? "null")
      writer.output.append(",\"message\":")
      Format.json(warning.message, into: &writer.output)
      writer.output.append("}")
    }
    writer.output.append("],\"embedded\":[")
    for (index, embedded) in embeddedPropertyLists.enumerated() {
      if index > 0 { writer.output.append(",") }
      writer.output.append(
        "{\"format\":\"\(embedded.format.rawValue)\",\"length\":\(embedded.data.count),\"object\":")
      writer.output.append(embedded.object.map(String.init) ?? "null")
      writer.output.append(",\"key\":")
      if let key = embedded.key {
        Format.json(key, into: &writer.output)
      } else {
        writer.output.append("null")
      }
      writer.output.append("}")
    }
    writer.output.append("]}")
    return writer.output
  }
}

extension ArchivedValue {
  /// This value as JSON: plain where JSON can hold it, a tagged object otherwise.
  ///
  /// Tags (`"$type"` values) and their members:
  /// - `date`: `iso8601` (UTC text), `secondsSince2001` (number)
  /// - `data`: `length`, `base64`
  /// - `real`: `value` is `"nan"`, `"inf"` or `"-inf"` (numbers JSON cannot hold)
  /// - `dictionary`: `entries`, an array of `{"key", "value"}` (keys that are not all strings, or
  ///   a string-keyed dictionary that has a `$type` key of its own)
  /// - `object`: `class`, `classes` (the chain), `fields` (an object in archive order)
  /// - `set`, `orderedSet`: `elements`; `countedSet`: `elements` of `{"value", "count"}`
  /// - `url`: `relative`, `base` (a value or `null`), `absolute` (when it can be computed)
  /// - `uuid`: `value`
  /// - `point` (`x`, `y`), `size` (`width`, `height`), `rect` (`x`, `y`, `width`, `height`),
  ///   `range` (`location`, `length`), `edgeInsets` (`top`, `left`, `bottom`, `right`)
  /// - `typedValue`: `encoding` (the Objective-C type encoding) and `value`: numbers, booleans,
  ///   strings, arrays, `{"$type": "struct", "name", "fields", "names"}`, `{"$type": "pointer",
  ///   "address"}`, `{"$type": "opaque", "encoding", "base64"}`, or any value for an object member
  /// - `color`: `model` (`rgb`, `white`, `cmyk`, `named`, `other`), `space`, `components`,
  ///   `alpha`, `hex` (`#rrggbb` or `null`), `catalog`, `name`, `fields` (other keys)
  /// - `font`: `name`, `family`, `size`, `traits`, `systemFont`, `fields` (other keys)
  /// - `attributedString`: `string`, `runs` of `{"location", "length", "attributes"}` (UTF-16)
  /// - `indexSet`: `ranges` of `{"location", "length"}`; `indexPath`: `indexes`
  /// - `shared`: `id` and `value`, the first occurrence of an object the archive refers to again
  /// - `reference`: `id` and `kind` (`"shared"`: shown earlier with that id; `"cycle"`: an
  ///   enclosing object; `"unresolved"`: a raw UID in a property list that is not an archive)
  public func json() -> String {
    var writer = JSONWriter()
    writer.write(self)
    return writer.output
  }
}

/// Appends compact JSON; recursion is bounded by the decoder's nesting limit.
struct JSONWriter {
  var output = ""

  private mutating func string(_ text: String) { Format.json(text, into: &output) }

  private mutating func number(_ value: Double) {
    if value.isFinite {
      output.append(value.description)
    } else {
      output.append("{\"$type\":\"real\",\"value\":\"\(value.isNaN ? "nan" : value > 0 ? "inf" : "-inf")\"}")
    }
  }

  private mutating func optional(_ text: String?) {
    if let text { string(text) } else { output.append("null") }
  }

  private mutating func fields(_ fields: [ArchivedField]) {
    output.append("{")
    for (index, field) in fields.enumerated() {
      if index > 0 { output.append(",") }
      string(field.key)
      output.append(":")
      write(field.value)
    }
    output.append("}")
  }

  private mutating func element(_ value: TypedElement) {
    switch value {
    case .signed(let value): output.append(String(value))
    case .unsigned(let value): output.append(String(value))
    case .real(let value): number(value)
    case .boolean(let flag): output.append(flag ? "true" : "false")
    case .text(let text): optional(text)
    case .object(let value): write(value)
    case .pointer(let address): output.append("{\"$type\":\"pointer\",\"address\":\(address)}")
    case .array(let elements):
      output.append("[")
      for (index, item) in elements.enumerated() {
        if index > 0 { output.append(",") }
        self.element(item)
      }
      output.append("]")
    case .structure(let name, let members, let names):
      output.append("{\"$type\":\"struct\",\"name\":")
      optional(name)
      output.append(",\"fields\":[")
      for (index, item) in members.enumerated() {
        if index > 0 { output.append(",") }
        self.element(item)
      }
      output.append("],\"names\":")
      if let names {
        output.append("[")
        for (index, name) in names.enumerated() {
          if index > 0 { output.append(",") }
          string(name)
        }
        output.append("]")
      } else {
        output.append("null")
      }
      output.append("}")
    case .opaque(let encoding, let bytes):
      output.append("{\"$type\":\"opaque\",\"encoding\":")
      string(encoding)
      output.append(",\"base64\":\"\(Data(bytes).base64EncodedString())\"}")
    }
  }

  private mutating func elements(_ values: [ArchivedValue]) {
    output.append("[")
    for (index, value) in values.enumerated() {
      if index > 0 { output.append(",") }
      write(value)
    }
    output.append("]")
  }

  mutating func write(_ value: ArchivedValue) {
    switch value {
    case .null: output.append("null")
    case .boolean(let flag): output.append(flag ? "true" : "false")
    case .integer(let number): output.append(String(number))
    case .unsignedInteger(let number): output.append(String(number))
    case .real(let real): number(real)
    case .string(let text): string(text)
    case .data(let data):
      output.append("{\"$type\":\"data\",\"length\":\(data.count),\"base64\":\"")
      output.append(data.base64EncodedString())
      output.append("\"}")
    case .date(let date):
      output.append("{\"$type\":\"date\",\"iso8601\":\"\(Format.date(date))\",\"secondsSince2001\":")
      number(date.timeIntervalSinceReferenceDate)
      output.append("}")
    case .array(let values): elements(values)
    case .dictionary(let entries):
      var plain = true
      for entry in entries {
        guard case .string(let key) = entry.key, key != "$type" else {
          plain = false
          break
        }
      }
      if plain {
        output.append("{")
        for (index, entry) in entries.enumerated() {
          if index > 0 { output.append(",") }
          if case .string(let key) = entry.key { string(key) }
          output.append(":")
          write(entry.value)
        }
        output.append("}")
      } else {
        output.append("{\"$type\":\"dictionary\",\"entries\":[")
        for (index, entry) in entries.enumerated() {
          if index > 0 { output.append(",") }
          output.append("{\"key\":")
          write(entry.key)
          output.append(",\"value\":")
          write(entry.value)
          output.append("}")
        }
        output.append("]}")
      }
    case .object(let object):
      output.append("{\"$type\":\"object\",\"class\":")
      string(object.className)
      output.append(",\"classes\":[")
      for (index, name) in object.classChain.enumerated() {
        if index > 0 { output.append(",") }
        string(name)
      }
      output.append("],\"fields\":{")
      for (index, field) in object.fields.enumerated() {
        if index > 0 { output.append(",") }
        string(field.key)
        output.append(":")
        write(field.value)
      }
      output.append("}}")
    case .set(let values):
      output.append("{\"$type\":\"set\",\"elements\":")
      elements(values)
      output.append("}")
    case .orderedSet(let values):
      output.append("{\"$type\":\"orderedSet\",\"elements\":")
      elements(values)
      output.append("}")
    case .countedSet(let counted):
      output.append("{\"$type\":\"countedSet\",\"elements\":[")
      for (index, element) in counted.enumerated() {
        if index > 0 { output.append(",") }
        output.append("{\"value\":")
        write(element.value)
        output.append(",\"count\":\(element.count)}")
      }
      output.append("]}")
    case .url(let url):
      output.append("{\"$type\":\"url\",\"relative\":")
      string(url.relative)
      output.append(",\"base\":")
      if let base = url.base { write(base) } else { output.append("null") }
      if let absolute = url.absoluteString {
        output.append(",\"absolute\":")
        string(absolute)
      }
      output.append("}")
    case .uuid(let uuid):
      output.append("{\"$type\":\"uuid\",\"value\":\"\(uuid.uuidString)\"}")
    case .structure(let structure):
      switch structure {
      case .point(let x, let y):
        output.append("{\"$type\":\"point\",\"x\":")
        number(x)
        output.append(",\"y\":")
        number(y)
      case .size(let width, let height):
        output.append("{\"$type\":\"size\",\"width\":")
        number(width)
        output.append(",\"height\":")
        number(height)
      case .rect(let x, let y, let width, let height):
        output.append("{\"$type\":\"rect\",\"x\":")
        number(x)
        output.append(",\"y\":")
        number(y)
        output.append(",\"width\":")
        number(width)
        output.append(",\"height\":")
        number(height)
      case .range(let location, let length):
        output.append("{\"$type\":\"range\",\"location\":\(location),\"length\":\(length)")
      case .edgeInsets(let top, let left, let bottom, let right):
        output.append("{\"$type\":\"edgeInsets\",\"top\":")
        number(top)
        output.append(",\"left\":")
        number(left)
        output.append(",\"bottom\":")
        number(bottom)
        output.append(",\"right\":")
        number(right)
      }
      output.append("}")
    case .typedValue(let typed):
      output.append("{\"$type\":\"typedValue\",\"encoding\":")
      string(typed.encoding)
      output.append(",\"value\":")
      element(typed.value)
      output.append("}")
    case .color(let color):
      output.append("{\"$type\":\"color\",\"model\":\"\(color.model.rawValue)\",\"space\":")
      optional(color.space)
      output.append(",\"components\":[")
      for (index, component) in color.components.enumerated() {
        if index > 0 { output.append(",") }
        number(component)
      }
      output.append("],\"alpha\":")
      if let alpha = color.alpha { number(alpha) } else { output.append("null") }
      output.append(",\"hex\":")
      optional(color.hex)
      output.append(",\"catalog\":")
      optional(color.catalog)
      output.append(",\"name\":")
      optional(color.name)
      output.append(",\"fields\":")
      fields(color.otherFields)
      output.append("}")
    case .font(let font):
      output.append("{\"$type\":\"font\",\"name\":")
      optional(font.name)
      output.append(",\"family\":")
      optional(font.family)
      output.append(",\"size\":")
      if let size = font.size { number(size) } else { output.append("null") }
      output.append(",\"traits\":")
      output.append(font.traits.map(String.init) ?? "null")
      output.append(",\"systemFont\":")
      output.append(font.isSystemFont.map { $0 ? "true" : "false" } ?? "null")
      output.append(",\"fields\":")
      fields(font.otherFields)
      output.append("}")
    case .attributedString(let attributed):
      output.append("{\"$type\":\"attributedString\",\"string\":")
      string(attributed.text)
      output.append(",\"runs\":[")
      for (index, run) in attributed.runs.enumerated() {
        if index > 0 { output.append(",") }
        output.append("{\"location\":\(run.location),\"length\":\(run.length),\"attributes\":")
        write(run.attributes)
        output.append("}")
      }
      output.append("]}")
    case .indexSet(let ranges):
      output.append("{\"$type\":\"indexSet\",\"ranges\":[")
      for (index, range) in ranges.enumerated() {
        if index > 0 { output.append(",") }
        output.append("{\"location\":\(range.location),\"length\":\(range.length)}")
      }
      output.append("]}")
    case .indexPath(let indexes):
      output.append("{\"$type\":\"indexPath\",\"indexes\":[")
      output.append(indexes.map(String.init).joined(separator: ","))
      output.append("]}")
    case .shared(let shared):
      output.append("{\"$type\":\"shared\",\"id\":\(shared.id),\"value\":")
      write(shared.value)
      output.append("}")
    case .reference(let reference):
      output.append(
        "{\"$type\":\"reference\",\"id\":\(reference.id),\"kind\":\"\(reference.kind.rawValue)\"}")
    }
  }
}
