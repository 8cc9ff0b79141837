import ArchivedValues
import Foundation
import PropertyList

/// Opens any property list or keyed archive and resolves it for display, whatever its classes.
///
/// ```swift
/// let inspection = try KeyedArchiveInspector().inspect(try Data(contentsOf: url))
/// print(inspection.textTree())
/// ```
///
/// It throws only when the bytes are not a readable property list (a ``PropertyListError``). A
/// readable property list that is not a valid archive is still returned, with
/// ``Inspection/notArchiveReason`` saying why.
public struct KeyedArchiveInspector: ArchiveInspecting {
  /// The limits used for the property list and for the object graph.
  public var maximumDepth: Int

  public init(maximumDepth: Int = KeyedArchiveDecoder.defaultMaximumDepth) {
    self.maximumDepth = maximumDepth
  }

  /// Inspects the bytes of a file or message.
  public func inspect(_ bytes: [UInt8]) throws(PropertyListError) -> Inspection {
    // Almost everything nests shallowly, so first try in place with a small limit, safe on any
    // thread; only input that nests deeper is read again on a thread with a large stack.
    guard maximumDepth > inPlaceNestingLimit else {
      return try inspectInPlace(bytes, maximumDepth: maximumDepth)
    }
    do {
      let inspection = try inspectInPlace(bytes, maximumDepth: inPlaceNestingLimit)
      if inspection.notArchiveReason != .nestingTooDeep(limit: inPlaceNestingLimit) { return inspection }
    } catch .nestingTooDeep(limit: inPlaceNestingLimit) {
      // Deeper than in-place recursion allows: read again below.
    }
    let inspector = self
    let result = withLargeStack { () -> Result<Inspection, PropertyListError> in
      do throws(PropertyListError) {
        return .success(try inspector.inspectInPlace(bytes, maximumDepth: inspector.maximumDepth))
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  private func inspectInPlace(_ bytes: [UInt8], maximumDepth: Int) throws(PropertyListError) -> Inspection {
    let document = try PropertyListReader(maximumDepth: maximumDepth).read(bytes)
    var inspector = self
    inspector.maximumDepth = maximumDepth
    return inspector.inspect(document)
  }

  /// Inspects the bytes of a file or message.
  public func inspect(_ data: Data) throws(PropertyListError) -> Inspection {
    try inspect([UInt8](data))
  }

  /// Inspects a property list already read.
  public func inspect(_ document: PropertyListDocument) -> Inspection {
    let textWarnings = document.unpairedSurrogates.map {
      InspectionWarning(.unpairedSurrogate, object: nil, message: $0.description)
    }
    do {
      let archive = try KeyedArchiveDecoder(maximumDepth: maximumDepth).decode(document.root)
      return Inspection(
        format: document.format, archiver: archive.archiver, version: archive.version,
        topValues: archive.topValues,
        notArchiveReason: nil, warnings: textWarnings + archive.warnings,
        embeddedPropertyLists: archive.embeddedPropertyLists)
    } catch {
      var embedded = [EmbeddedPropertyList]()
      let value = Self.plain(document.root, embedded: &embedded)
      var isPlain = true
      if case .dictionary(let entries) = document.root {
        isPlain = !entries.contains { ["$archiver", "$objects", "$top"].contains($0.key) }
      }
      return Inspection(
        format: document.format, archiver: nil, version: nil,
        topValues: [ArchivedField(key: "plist", value: value)],
        notArchiveReason: error, isPlainPropertyList: isPlain, warnings: textWarnings,
        embeddedPropertyLists: embedded)
    }
  }

  /// A plain property list as archived values; its nesting is bounded by the reader's limit.
  static func plain(_ value: PropertyListValue, embedded: inout [EmbeddedPropertyList]) -> ArchivedValue {
    switch value {
    case .uid(let reference): return .reference(ArchivedReference(id: reference, kind: .unresolved))
    case .data(let data):
      if let found = EmbeddedPropertyList(data, object: nil, key: nil) { embedded.append(found) }
      return .data(data)
    case .array(let elements):
      return .array(elements.map { plain($0, embedded: &embedded) })
    case .dictionary(let entries):
      return .dictionary(
        entries.map { ArchivedEntry(key: .string($0.key), value: plain($0.value, embedded: &embedded)) })
    case .string, .integer, .unsignedInteger, .real, .boolean, .date:
      return ArchivedValue(scalar: value) ?? .null
    }
  }
}
