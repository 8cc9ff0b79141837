import ArchivedValues

/// An `NSKeyedArchiver` archive resolved into values, without any class being instantiated.
public struct ResolvedArchive: Sendable, Hashable {
  /// The `$archiver` value exactly as found: `NSKeyedArchiver` for Foundation, other names for
  /// other writers; `nil` when there is none (or it is not a string), which a warning names.
  public var archiver: String?
  /// The `$version` value (100000 from Apple's archiver); `nil` when there is none (or it is not
  /// an integer), which a warning names.
  public var version: Int64?
  /// One value per `$top` key: `root` first, then the others sorted by their bytes.
  public var topValues: [ArchivedField]
  /// Things worth knowing that did not stop decoding, such as a known class with a layout this
  /// decoder does not interpret (shown as a generic object instead).
  public var warnings: [InspectionWarning]
  /// Data values that themselves hold a property list (often another archive), in the order met.
  public var embeddedPropertyLists: [EmbeddedPropertyList]

  /// The `root` top value, or the first one when there is no `root`.
  public var root: ArchivedValue {
    topValues.first(where: { $0.key == "root" })?.value ?? topValues.first?.value ?? .null
  }
}
