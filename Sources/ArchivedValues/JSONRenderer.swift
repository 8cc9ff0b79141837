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
  /// - `decimal` (`NSDecimalNumber`): `value`, the exact number as a string (`"-123.45"`,
  ///   `"NaN"`), so that no reader rounds it through a `Double`
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

/// Appends compact JSON without recursing (see ``QueuedRenderer``).
struct JSONWriter: QueuedRenderer {
  var output = ""
  var pending: [RenderPiece<Child>] = []

  /// An archived value, or one member of a typed `NSValue`.
  enum Child {
    case value(ArchivedValue)
    case element(TypedElement)
  }

  /// Appends `value`'s JSON to ``output``.
  mutating func write(_ value: ArchivedValue) { render(.value(value)) }

  mutating func expand(_ child: Child) {
    switch child {
    case .value(let value): expand(value)
    case .element(let element): self.element(element)
    }
  }

  private static func literal(_ text: String) -> String {
    var out = ""
    Format.json(text, into: &out)
    return out
  }

  private mutating func string(_ text: String) { emit(Self.literal(text)) }

  private mutating func number(_ value: Double) {
    if value.isFinite {
      emit(value.description)
    } else {
      emit("{\"$type\":\"real\",\"value\":\"\(value.isNaN ? "nan" : value > 0 ? "inf" : "-inf")\"}")
    }
  }

  private mutating func optional(_ text: String?) {
    if let text { string(text) } else { emit("null") }
  }

  /// `{"$type": type` and the members, without the closing brace.
  private mutating func numbers(_ type: String, _ members: KeyValuePairs<String, Double>) {
    emit("{\"$type\":\"\(type)\"")
    for (name, value) in members {
      emit(",\"\(name)\":")
      number(value)
    }
  }

  /// `{"$type":"type","member":`, what `write` writes (the member's value), then `}`: a tagged
  /// object of one member.
  private mutating func tagged(_ type: String, _ member: String, _ write: (inout Self) -> Void) {
    emit("{\"$type\":\"\(type)\",\"\(member)\":")
    write(&self)
    emit("}")
  }

  /// `opening`, each of `items` as `write` writes it with commas between, then `closing`: a JSON
  /// array, or with braces an object whose members `write` writes.
  private mutating func list<Items: Sequence>(
    _ items: Items, opening: String = "[", closing: String = "]", _ write: (inout Self, Items.Element) -> Void
  ) {
    emit(opening)
    for (index, item) in items.enumerated() {
      if index > 0 { emit(",") }
      write(&self, item)
    }
    emit(closing)
  }

  private mutating func strings(_ texts: [String]) { list(texts) { $0.string($1) } }

  private mutating func fields(_ fields: [ArchivedField]) {
    list(fields, opening: "{", closing: "}") { writer, field in
      writer.string(field.key)
      writer.emit(":")
      writer.queue(.value(field.value))
    }
  }

  private mutating func element(_ value: TypedElement) {
    switch value {
    case .signed(let value): emit(String(value))
    case .unsigned(let value): emit(String(value))
    case .real(let value): number(value)
    case .boolean(let flag): emit(flag ? "true" : "false")
    case .text(let text): optional(text)
    case .object(let value): queue(.value(value))
    case .pointer(let address): emit("{\"$type\":\"pointer\",\"address\":\(address)}")
    case .array(let elements): list(elements) { $0.queue(.element($1)) }
    case .structure(let name, let members, let names):
      emit("{\"$type\":\"struct\",\"name\":")
      optional(name)
      emit(",\"fields\":")
      list(members) { $0.queue(.element($1)) }
      emit(",\"names\":")
      if let names {
        strings(names)
      } else {
        emit("null")
      }
      emit("}")
    case .opaque(let encoding, let bytes):
      emit("{\"$type\":\"opaque\",\"encoding\":")
      string(encoding)
      emit(",\"base64\":\"\(Base64.encoded(bytes))\"}")
    }
  }

  private mutating func elements(_ values: [ArchivedValue]) { list(values) { $0.queue(.value($1)) } }

  /// Writes `value`'s own text and queues its children.
  private mutating func expand(_ value: ArchivedValue) {
    switch value {
    case .null: emit("null")
    case .boolean(let flag): emit(flag ? "true" : "false")
    case .integer(let number): emit(String(number))
    case .unsignedInteger(let number): emit(String(number))
    case .real(let real): number(real)
    case .decimal(let decimal): emit("{\"$type\":\"decimal\",\"value\":\"\(decimal)\"}")
    case .string(let text): string(text)
    case .data(let data):
      emit("{\"$type\":\"data\",\"length\":\(data.count),\"base64\":\"")
      emit(Base64.encoded(data))
      emit("\"}")
    case .date(let date):
      emit("{\"$type\":\"date\",\"iso8601\":\"\(date.iso8601)\",\"secondsSince2001\":")
      number(date.secondsSince2001)
      emit("}")
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
        list(entries, opening: "{", closing: "}") { writer, entry in
          if case .string(let key) = entry.key { writer.string(key) }
          writer.emit(":")
          writer.queue(.value(entry.value))
        }
      } else {
        emit("{\"$type\":\"dictionary\",\"entries\":")
        list(entries) { writer, entry in
          writer.emit("{\"key\":")
          writer.queue(.value(entry.key))
          writer.emit(",\"value\":")
          writer.queue(.value(entry.value))
          writer.emit("}")
        }
        emit("}")
      }
    case .object(let object):
      emit("{\"$type\":\"object\",\"class\":")
      string(object.className)
      emit(",\"classes\":")
      strings(object.classChain)
      emit(",\"fields\":")
      fields(object.fields)
      emit("}")
    case .set(let values): tagged("set", "elements") { $0.elements(values) }
    case .orderedSet(let values): tagged("orderedSet", "elements") { $0.elements(values) }
    case .countedSet(let counted):
      tagged("countedSet", "elements") {
        $0.list(counted) { writer, element in
          writer.emit("{\"value\":")
          writer.queue(.value(element.value))
          writer.emit(",\"count\":\(element.count)}")
        }
      }
    case .url(let url):
      emit("{\"$type\":\"url\",\"relative\":")
      string(url.relative)
      emit(",\"base\":")
      if let base = url.base { queue(.value(base)) } else { emit("null") }
      if let absolute = url.absoluteString {
        emit(",\"absolute\":")
        string(absolute)
      }
      emit("}")
    case .uuid(let uuid):
      emit("{\"$type\":\"uuid\",\"value\":\"\(uuid.uuidString)\"}")
    case .structure(let structure):
      switch structure {
      case .point(let x, let y): numbers("point", ["x": x, "y": y])
      case .size(let width, let height): numbers("size", ["width": width, "height": height])
      case .rect(let x, let y, let width, let height):
        numbers("rect", ["x": x, "y": y, "width": width, "height": height])
      case .range(let location, let length):
        emit("{\"$type\":\"range\",\"location\":\(location),\"length\":\(length)")
      case .edgeInsets(let top, let left, let bottom, let right):
        numbers("edgeInsets", ["top": top, "left": left, "bottom": bottom, "right": right])
      }
      emit("}")
    case .typedValue(let typed):
      emit("{\"$type\":\"typedValue\",\"encoding\":")
      string(typed.encoding)
      emit(",\"value\":")
      queue(.element(typed.value))
      emit("}")
    case .color(let color):
      emit("{\"$type\":\"color\",\"model\":\"\(color.model.rawValue)\",\"space\":")
      optional(color.space)
      emit(",\"components\":")
      list(color.components) { $0.number($1) }
      emit(",\"alpha\":")
      if let alpha = color.alpha { number(alpha) } else { emit("null") }
      emit(",\"hex\":")
      optional(color.hex)
      emit(",\"catalog\":")
      optional(color.catalog)
      emit(",\"name\":")
      optional(color.name)
      emit(",\"fields\":")
      fields(color.otherFields)
      emit("}")
    case .font(let font):
      emit("{\"$type\":\"font\",\"name\":")
      optional(font.name)
      emit(",\"family\":")
      optional(font.family)
      emit(",\"size\":")
      if let size = font.size { number(size) } else { emit("null") }
      emit(",\"traits\":")
      emit(font.traits.map(String.init) ?? "null")
      emit(",\"systemFont\":")
      emit(font.isSystemFont.map { $0 ? "true" : "false" } ?? "null")
      emit(",\"fields\":")
      fields(font.otherFields)
      emit("}")
    case .attributedString(let attributed):
      emit("{\"$type\":\"attributedString\",\"string\":")
      string(attributed.text)
      emit(",\"runs\":")
      list(attributed.runs) { writer, run in
        writer.emit("{\"location\":\(run.location),\"length\":\(run.length),\"attributes\":")
        writer.queue(.value(run.attributes))
        writer.emit("}")
      }
      emit("}")
    case .indexSet(let ranges):
      tagged("indexSet", "ranges") {
        $0.list(ranges) { $0.emit("{\"location\":\($1.location),\"length\":\($1.length)}") }
      }
    case .indexPath(let indexes):
      emit("{\"$type\":\"indexPath\",\"indexes\":[")
      emit(indexes.map(String.init).joined(separator: ","))
      emit("]}")
    case .shared(let shared):
      emit("{\"$type\":\"shared\",\"id\":\(shared.id),\"value\":")
      queue(.value(shared.value))
      emit("}")
    case .reference(let reference):
      emit(
        "{\"$type\":\"reference\",\"id\":\(reference.id),\"kind\":\"\(reference.kind.rawValue)\"}")
    }
  }
}
