import Foundation
import PropertyList

/// Everything the inspector found in one file or message: the resolved archive, or the plain
/// property list with the reason it is not an archive.
///
/// Render it with ``textTree(options:)``, ``json()`` or ``summary(width:)``.
public struct Inspection: Sendable, Hashable {
  /// Whether the bytes were a binary or XML property list.
  public var format: PropertyListFormat
  /// The `$archiver` value exactly as found; `nil` when there is none (a warning says so), when
  /// it is not a string, or when the property list is not a resolvable archive.
  public var archiver: String?
  /// The `$version` value, when there is one and it is an integer.
  public var version: Int64?
  /// For an archive, one value per `$top` key, `root` first and the others sorted; for a plain
  /// property list, a single entry keyed `plist` holding it (archive references in it are shown
  /// as unresolved references).
  public var topValues: [ArchivedField]
  /// Why a readable property list is not shown as an archive (such as "there is no $objects key"
  /// for a plain property list); `nil` for archives.
  public var notArchiveReason: KeyedArchiveError?
  /// Whether the property list does not even try to be an archive (its top value is not a
  /// dictionary, or has none of `$archiver`, `$objects` and `$top`): a preferences file, say,
  /// rather than a damaged archive. ``notArchiveReason`` is set for it all the same.
  public var isPlainPropertyList: Bool
  /// Notes that did not stop the file from being shown.
  public var warnings: [InspectionWarning]
  /// Data values that hold property lists of their own (archives nested in archives); pass one's
  /// ``EmbeddedPropertyList/data`` to ``KeyedArchiveInspector/inspect(_:)-(Data)`` to open it.
  public var embeddedPropertyLists: [EmbeddedPropertyList]

  /// How deeply the shown values nest (renderers use it to pick a thread with enough stack).
  var nesting = 0

  /// Whether the file was resolved as a keyed archive (even one without `$archiver`).
  public var isArchive: Bool { notArchiveReason == nil }

  /// Whether the file is a keyed archive exactly as Apple's `NSKeyedArchiver` writes it: resolved,
  /// with no warning about its header or its class descriptions (``InspectionWarning/Kind``;
  /// another archiver's name, such as SceneKit's, is no deviation of form).
  public var isWellFormedArchive: Bool {
    isArchive && !warnings.contains { $0.kind != .uninterpretedLayout && $0.kind != .otherArchiver }
  }

  /// The value to show first: `$top`'s `root` (or its first value), or the plain property list.
  public var root: ArchivedValue {
    topValues.first(where: { $0.key == "root" })?.value ?? topValues.first?.value ?? .null
  }

  public init(
    format: PropertyListFormat, archiver: String?, version: Int64?, topValues: [ArchivedField],
    notArchiveReason: KeyedArchiveError?, isPlainPropertyList: Bool = false, warnings: [InspectionWarning],
    embeddedPropertyLists: [EmbeddedPropertyList]
  ) {
    self.format = format
    self.archiver = archiver
    self.version = version
    self.topValues = topValues
    self.notArchiveReason = notArchiveReason
    self.isPlainPropertyList = isPlainPropertyList
    self.warnings = warnings
    self.embeddedPropertyLists = embeddedPropertyLists
  }
}

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
public struct KeyedArchiveInspector: Sendable {
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
    do {
      var nesting = 0
      let archive = try KeyedArchiveDecoder(maximumDepth: maximumDepth).decode(
        document.root, nesting: &nesting)
      var inspection = Inspection(
        format: document.format, archiver: archive.archiver, version: archive.version,
        topValues: archive.topValues,
        notArchiveReason: nil, warnings: archive.warnings,
        embeddedPropertyLists: archive.embeddedPropertyLists)
      inspection.nesting = nesting
      return inspection
    } catch {
      var embedded = [EmbeddedPropertyList]()
      var nesting = 0
      let value = Self.plain(document.root, embedded: &embedded, depth: 0, nesting: &nesting)
      var isPlain = true
      if case .dictionary(let entries) = document.root {
        isPlain = !entries.contains { ["$archiver", "$objects", "$top"].contains($0.key) }
      }
      var inspection = Inspection(
        format: document.format, archiver: nil, version: nil,
        topValues: [ArchivedField(key: "plist", value: value)],
        notArchiveReason: error, isPlainPropertyList: isPlain, warnings: [], embeddedPropertyLists: embedded)
      inspection.nesting = nesting
      return inspection
    }
  }

  /// A plain property list as archived values; its nesting is bounded by the reader's limit.
  static func plain(
    _ value: PropertyListValue, embedded: inout [EmbeddedPropertyList], depth: Int, nesting: inout Int
  )
    -> ArchivedValue
  {
    nesting = max(nesting, depth)
    switch value {
    case .string(let text): return .string(text)
    case .integer(let number): return .integer(number)
    case .unsignedInteger(let number): return .unsignedInteger(number)
    case .real(let number): return .real(number)
    case .boolean(let flag): return .boolean(flag)
    case .date(let date): return .date(date)
    case .data(let data):
      if data.count >= 8, PropertyListReader.looksLikePropertyList(data) {
        let format: PropertyListFormat = PropertyListReader.isBinary(data) ? .binary : .xml
        embedded.append(EmbeddedPropertyList(object: nil, key: nil, format: format, data: data))
      }
      return .data(data)
    case .uid(let reference): return .reference(ArchivedReference(id: reference, kind: .unresolved))
    case .array(let elements):
      var result = [ArchivedValue]()
      result.reserveCapacity(elements.count)
      for element in elements {
        result.append(plain(element, embedded: &embedded, depth: depth + 1, nesting: &nesting))
      }
      return .array(result)
    case .dictionary(let entries):
      var result = [ArchivedEntry]()
      result.reserveCapacity(entries.count)
      for entry in entries {
        result.append(
          ArchivedEntry(
            key: .string(entry.key),
            value: plain(entry.value, embedded: &embedded, depth: depth + 1, nesting: &nesting)))
      }
      return .dictionary(result)
    }
  }
}
