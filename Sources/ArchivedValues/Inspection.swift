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
  /// ``EmbeddedPropertyList/data`` to an inspector (``ArchiveInspecting``) to open it.
  public var embeddedPropertyLists: [EmbeddedPropertyList]

  /// Whether the file was resolved as a keyed archive (even one without `$archiver`).
  public var isArchive: Bool { notArchiveReason == nil }

  /// Whether the file is a keyed archive exactly as Apple's `NSKeyedArchiver` writes it: resolved,
  /// with no warning about its header or its class descriptions (``InspectionWarning/Kind``;
  /// another archiver's name, such as SceneKit's, is no deviation of form).
  public var isWellFormedArchive: Bool {
    isArchive
      && !warnings.contains {
        $0.kind != .uninterpretedLayout && $0.kind != .otherArchiver && $0.kind != .unpairedSurrogate
      }
  }

  /// The value to show: `$top`'s `root`, or the plain property list. An archive whose `$top` has
  /// no `root` (written with `encode(_:forKey:)` under keys of its own) gives its only value, or
  /// a dictionary of every key, so that `read`, summaries and the dashboard show all of them.
  public var root: ArchivedValue {
    if let root = topValues.first(where: { $0.key == "root" }) { return root.value }
    guard topValues.count > 1 else { return topValues.first?.value ?? .null }
    return .dictionary(topValues.map { ArchivedEntry(key: .string($0.key), value: $0.value) })
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
