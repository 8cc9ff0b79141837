import ArchivedValues
import PropertyList

/// Resolves `NSKeyedArchiver` object graphs into ``ArchivedValue`` trees, never instantiating a
/// class.
///
/// Foundation's own types become native cases; every other class becomes an
/// ``ArchivedValue/object(_:)`` with its class chain and encoded fields. Each `$objects` entry is
/// decoded at most once: an object the archive refers to more than once is shown in full at its
/// first occurrence, wrapped in ``ArchivedValue/shared(_:)``, and every later occurrence is an
/// ``ArchivedValue/reference(_:)`` to it, so cost stays linear in the input however the graph is
/// shared, and cycles end in a reference of kind ``ArchivedReference/Kind/cycle``.
public struct KeyedArchiveDecoder: Sendable {
  /// How deeply objects (and containers within them) may nest before decoding stops with
  /// ``KeyedArchiveError/nestingTooDeep(limit:)``.
  public var maximumDepth: Int

  /// The default nesting limit, which keeps recursion well within a 512 KB thread stack.
  public static let defaultMaximumDepth = 512

  public init(maximumDepth: Int = KeyedArchiveDecoder.defaultMaximumDepth) {
    self.maximumDepth = maximumDepth
  }

  /// Resolves the archive held in a property list's top value.
  public func decode(_ propertyList: PropertyListValue) throws(KeyedArchiveError) -> ResolvedArchive {
    guard case .dictionary(let entries) = propertyList else { throw .topIsNotDictionary }
    var objectsValue: PropertyListValue?
    var topValue: PropertyListValue?
    var archiverValue: PropertyListValue?
    var versionValue: PropertyListValue?
    var headerWarnings = [InspectionWarning]()
    for entry in entries {
      switch entry.key {
      case "$objects": objectsValue = entry.value
      case "$top": topValue = entry.value
      case "$archiver": archiverValue = entry.value
      case "$version": versionValue = entry.value
      default:
        headerWarnings.append(
          InspectionWarning(
            .unknownHeaderKey, object: nil,
            message: "the archive has a top-level key \(DisplayText.quoted(entry.key)), which "
              + "NSKeyedArchiver does not write"))
      }
    }
    guard let objectsValue else { throw .missingKey("$objects") }
    guard let topValue else { throw .missingKey("$top") }
    guard case .array(let objects) = objectsValue else {
      throw .wrongType(key: "$objects", expected: "an array of objects")
    }
    guard case .dictionary(let unorderedTop) = topValue else {
      throw .wrongType(key: "$top", expected: "a dictionary of references")
    }
    guard !unorderedTop.isEmpty else { throw .emptyTop }
    var archiver: String?
    switch archiverValue {
    case nil:
      headerWarnings.insert(
        InspectionWarning(
          .missingArchiver, object: nil,
          message: "there is no $archiver; decoded as NSKeyedArchiver's format"), at: 0)
    case .string(let name)?:
      archiver = name
      if name != "NSKeyedArchiver" {
        // Apple's keyed archivers (SceneKit's `SCNKeyedArchiver`) say so in their name; others,
        // such as `NSArchiver`, write the old sequential format.
        let isKeyed = name.utf8.count > 13 && name.hasSuffix("KeyedArchiver")
        headerWarnings.insert(
          isKeyed
            ? InspectionWarning(
              .otherArchiver, object: nil,
              message: "written by \(DisplayText.quoted(name)), not NSKeyedArchiver; decoded the same way")
            : InspectionWarning(
              .notKeyedArchiver, object: nil,
              message: "written by \(DisplayText.quoted(name)), which is not a keyed archiver; decoded as "
                + "NSKeyedArchiver's format all the same"),
          at: 0)
      }
    case let other?:
      headerWarnings.insert(
        InspectionWarning(
          .invalidArchiver, object: nil,
          message: "$archiver is \(Self.describe(other)), not a string; decoded as NSKeyedArchiver's format"),
        at: 0)
    }
    var version: Int64?
    switch versionValue {
    case nil:
      headerWarnings.append(
        InspectionWarning(
          .missingVersion, object: nil, message: "there is no $version; NSKeyedArchiver writes 100000"))
    case .integer(let number)?:
      version = number
      if number != 100_000 {
        headerWarnings.append(
          InspectionWarning(
            .unknownVersion, object: nil,
            message: "$version is \(number); NSKeyedArchiver writes 100000, the only version known"))
      }
    case let other?:
      headerWarnings.append(
        InspectionWarning(
          .invalidVersion, object: nil,
          message: "$version is \(Self.describe(other)), not an integer; NSKeyedArchiver writes 100000"))
    }
    // `root` first (so an object it shares with another key is shown in full under it), then the
    // others sorted by their bytes: the file's own order is only its writer's hash order.
    let top = unorderedTop.sorted { left, right in
      let leftIsRoot = left.key.utf8.elementsEqual("root".utf8)
      let rightIsRoot = right.key.utf8.elementsEqual("root".utf8)
      if leftIsRoot != rightIsRoot { return leftIsRoot }
      return left.key.utf8.lexicographicallyPrecedes(right.key.utf8)
    }
    if !top[0].key.utf8.elementsEqual("root".utf8) {
      headerWarnings.append(
        InspectionWarning(
          .topWithoutRoot, object: nil,
          message: "$top has no root key; showing its \(top.count == 1 ? "one key" : "\(top.count) keys")"))
    }
    var resolver = ArchiveResolver(objects: objects, maximumDepth: maximumDepth, topEntries: top)
    var topValues = [ArchivedField]()
    for entry in top {
      topValues.append(
        ArchivedField(key: entry.key, value: try resolver.convert(entry.value, object: nil, key: entry.key)))
    }
    return ResolvedArchive(
      archiver: archiver, version: version, topValues: topValues,
      warnings: headerWarnings + resolver.warnings,
      embeddedPropertyLists: resolver.embedded)
  }

  /// A short description of a header value of the wrong type, escaped for display.
  static func describe(_ value: PropertyListValue) -> String {
    switch value {
    case .string(let text): return "the string " + DisplayText.quoted(String(text.prefix(64)))
    case .integer(let number): return "the integer \(number)"
    case .unsignedInteger(let number): return "the integer \(number)"
    case .real(let number): return "the real number \(number)"
    case .boolean(let flag): return flag ? "true" : "false"
    case .date: return "a date"
    case .data(let data): return "data of \(data.count) bytes"
    case .uid(let reference): return "a reference to object \(reference)"
    case .array: return "an array"
    case .dictionary: return "a dictionary"
    }
  }
}
