import ArchivedValues
import PropertyList

/// The working state of one decode: per-object state, memoized small values and limits.
struct ArchiveResolver {
  private enum State: UInt8 {
    case unvisited, inProgress, referenceable, inline
  }

  let objects: [PropertyListValue]
  private var states: [State]
  private var inlineValues: [ArchivedValue?]
  /// Whether an object is referred to at least twice (so its first occurrence gets a label).
  private var isShared: [Bool]
  private var classes: [ClassDescription?]
  private let maximumDepth: Int
  private var depth = 0
  private var copiedBytes = 0
  private let copyLimit: Int
  var warnings: [InspectionWarning] = []
  var embedded: [EmbeddedPropertyList] = []
  /// The object and field whose reference is being resolved, so that data found in an object of
  /// its own is named by the field that refers to it.
  private(set) var referrer: (object: Int?, key: String?) = (nil, nil)

  init(objects: [PropertyListValue], maximumDepth: Int, topEntries: [PropertyListEntry]) {
    self.objects = objects
    self.maximumDepth = maximumDepth
    states = Array(repeating: .unvisited, count: objects.count)
    inlineValues = Array(repeating: nil, count: objects.count)
    classes = Array(repeating: nil, count: objects.count)
    copyLimit = max(objects.count * 256, 1 << 20)
    var counts = [UInt8](repeating: 0, count: objects.count)
    for entry in topEntries { Self.count(entry.value, into: &counts) }
    for object in objects {
      if case .dictionary(let entries) = object {
        for entry in entries where entry.key != "$class" { Self.count(entry.value, into: &counts) }
      } else {
        Self.count(object, into: &counts)
      }
    }
    isShared = counts.map { $0 >= 2 }
  }

  /// Counts references (saturating at 2) in a value; property lists nest at most
  /// ``PropertyListReader/maximumDepth`` deep, so the recursion is bounded.
  private static func count(_ value: PropertyListValue, into counts: inout [UInt8]) {
    switch value {
    case .uid(let reference):
      if reference < UInt64(counts.count), counts[Int(reference)] < 2 { counts[Int(reference)] += 1 }
    case .array(let elements):
      for element in elements { count(element, into: &counts) }
    case .dictionary(let entries):
      for entry in entries { count(entry.value, into: &counts) }
    default:
      break
    }
  }

  // MARK: - Resolution

  /// Resolves a reference found in `object` (nil for `$top`).
  mutating func resolve(_ reference: UInt64, from object: Int?, key: String? = nil) throws(KeyedArchiveError)
    -> ArchivedValue
  {
    guard reference < UInt64(objects.count) else {
      throw .referenceOutOfRange(reference: reference, object: object, objectCount: objects.count)
    }
    let index = Int(reference)
    switch states[index] {
    case .inline: if let value = inlineValues[index] { return value }
    case .referenceable: return .reference(ArchivedReference(id: reference, kind: .shared))
    case .inProgress: return .reference(ArchivedReference(id: reference, kind: .cycle))
    case .unvisited: break
    }
    try descend()
    defer { depth -= 1 }
    states[index] = .inProgress
    let outer = referrer
    referrer = (object, key)
    let value = try decodeObject(index)
    referrer = outer
    if Self.isInline(value) {
      states[index] = .inline
      inlineValues[index] = value
      return value
    }
    states[index] = .referenceable
    return isShared[index] ? .shared(ArchivedSharedValue(id: reference, value: value)) : value
  }

  /// Small values that are cheap to repeat are shown in full wherever they occur.
  private static func isInline(_ value: ArchivedValue) -> Bool {
    switch value {
    case .null, .boolean, .integer, .unsignedInteger, .real, .date, .uuid, .structure: return true
    case .string(let text): return text.utf8.count <= 128
    case .data(let data): return data.count <= 32
    default: return false
    }
  }

  /// Converts a value stored inside an object (or in `$top`), resolving the references in it.
  mutating func convert(_ value: PropertyListValue, object: Int?, key: String?) throws(KeyedArchiveError)
    -> ArchivedValue
  {
    switch value {
    case .uid(let reference): return try resolve(reference, from: object, key: key)
    case .data(let data):
      noteEmbedded(data, object: object, key: key)
      return .data(data)
    case .array(let elements):
      return .array(
        try convertContents(of: elements) { resolver, element throws(KeyedArchiveError) in
          try resolver.convert(element, object: object, key: key)
        })
    case .dictionary(let entries):
      return .dictionary(
        try convertContents(of: entries) { resolver, entry throws(KeyedArchiveError) in
          ArchivedEntry(
            key: .string(entry.key), value: try resolver.convert(entry.value, object: object, key: entry.key))
        })
    case .string, .integer, .unsignedInteger, .real, .boolean, .date:
      return ArchivedValue(scalar: value) ?? .null
    }
  }

  /// A container's `items`, each converted by `convertItem` one level deeper into containers.
  private mutating func convertContents<Item, Converted>(
    of items: [Item], _ convertItem: (inout Self, Item) throws(KeyedArchiveError) -> Converted
  ) throws(KeyedArchiveError) -> [Converted] {
    try descend()
    defer { depth -= 1 }
    var result = [Converted]()
    result.reserveCapacity(items.count)
    for item in items { result.append(try convertItem(&self, item)) }
    return result
  }

  /// One level deeper into containers; the caller steps back out (`depth -= 1`) when done.
  private mutating func descend() throws(KeyedArchiveError) {
    depth += 1
    guard depth <= maximumDepth else {
      depth -= 1
      throw .nestingTooDeep(limit: maximumDepth)
    }
  }

  mutating func noteEmbedded(_ data: [UInt8], object: Int?, key: String?) {
    if let found = EmbeddedPropertyList(data, object: object, key: key) { embedded.append(found) }
  }

  /// Decodes `$objects[index]` (called once per object).
  private mutating func decodeObject(_ index: Int) throws(KeyedArchiveError) -> ArchivedValue {
    let object = objects[index]
    switch object {
    case .string(let text) where text == "$null": return .null
    case .data(let data):
      // Data as an object of its own: name the field that refers to it.
      noteEmbedded(data, object: referrer.object, key: referrer.key)
      return .data(data)
    case .dictionary(let entries):
      guard let classEntry = entries.first(where: { $0.key == "$class" }) else {
        warnings.append(
          InspectionWarning(
            .dictionaryWithoutClass, object: index,
            message: "a dictionary without $class, which NSKeyedArchiver does not write (it archives "
              + "dictionaries as NSDictionary objects); shown as a plain dictionary"))
        return try convert(object, object: index, key: nil)
      }
      guard case .uid(let classReference) = classEntry.value else {
        throw .invalidClassReference(object: index)
      }
      let description = try classDescription(classReference, object: index)
      if let kind = description.kind, let value = try decodeFoundation(kind, entries: entries, object: index)
      {
        return value
      }
      return try genericObject(description, entries: entries, object: index)
    default:
      return try convert(object, object: index, key: nil)
    }
  }

  private mutating func classDescription(_ reference: UInt64, object: Int) throws(KeyedArchiveError)
    -> ClassDescription
  {
    guard reference < UInt64(objects.count) else {
      throw .referenceOutOfRange(reference: reference, object: object, objectCount: objects.count)
    }
    let index = Int(reference)
    if let known = classes[index] { return known }
    guard case .dictionary(let entries) = objects[index],
      case .string(let name)? = entries.first(where: { $0.key == "$classname" })?.value
    else { throw .invalidClassDescription(object: object, classObject: index) }
    var chain = [String]()
    if case .array(let names)? = entries.first(where: { $0.key == "$classes" })?.value {
      for case .string(let className) in names { chain.append(className) }
    }
    if chain.isEmpty { chain = [name] }
    if !entries.contains(where: { $0.key == "$classes" }) {
      warnings.append(
        InspectionWarning(
          .classDescription, object: index,
          message: "the class description of \(DisplayText.field(name)) has no $classes"))
    }
    for entry in entries
    where entry.key != "$classname" && entry.key != "$classes" && entry.key != "$classhints" {
      warnings.append(
        InspectionWarning(
          .classDescription, object: index,
          message: "the class description of \(DisplayText.field(name)) has the key "
            + "\(DisplayText.quoted(entry.key)), which NSKeyedArchiver does not write"))
    }
    let description = ClassDescription(
      name: name, chain: chain, kind: FoundationClass(name: name, chain: chain))
    classes[index] = description
    return description
  }

  /// The generic view of an instance: class name, chain and every encoded key except `$class`.
  mutating func genericObject(_ description: ClassDescription, entries: [PropertyListEntry], object: Int)
    throws(KeyedArchiveError) -> ArchivedValue
  {
    var fields = [ArchivedField]()
    fields.reserveCapacity(entries.count)
    for entry in entries where entry.key != "$class" {
      fields.append(
        ArchivedField(key: entry.key, value: try convert(entry.value, object: object, key: entry.key)))
    }
    return .object(ArchivedObject(className: description.name, classChain: description.chain, fields: fields))
  }

  /// Marks the object `value` refers to as shared, for decoders that use one child several times
  /// (an attributed string's runs reuse attribute dictionaries by index).
  mutating func markShared(_ value: PropertyListValue) {
    if case .uid(let reference) = value, reference < UInt64(objects.count) { isShared[Int(reference)] = true }
  }

  /// Counts bytes copied out of shared content, so a hostile archive cannot make them grow faster
  /// than its input.
  mutating func charge(_ bytes: Int) throws(KeyedArchiveError) {
    copiedBytes += bytes
    guard copiedBytes <= copyLimit else { throw .expansionTooLarge(limit: copyLimit) }
  }

  /// Follows one reference without decoding or marking it, for content a Foundation class reads
  /// from its children (an attributed string's text, an index path's data).
  func peek(_ value: PropertyListValue) -> PropertyListValue? {
    guard case .uid(let reference) = value else { return value }
    guard reference < UInt64(objects.count) else { return nil }
    return objects[Int(reference)]
  }

  func peekClassName(_ value: PropertyListValue) -> String? {
    guard case .dictionary(let entries)? = peek(value),
      case .uid(let reference)? = entries.first(where: { $0.key == "$class" })?.value,
      reference < UInt64(objects.count),
      case .dictionary(let classEntries) = objects[Int(reference)],
      case .string(let name)? = classEntries.first(where: { $0.key == "$classname" })?.value
    else { return nil }
    return name
  }
}
