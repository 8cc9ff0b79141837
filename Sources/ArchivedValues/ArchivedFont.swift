/// An archived `NSFont` or `UIFont`: AppKit's `NSName`, `NSSize`, `NSfFlags`; UIKit's
/// `UIFontName`, `UIFontFamilyName`, `UIFontPointSize`, `UIFontTraits`, `UISystemFont`.
public struct ArchivedFont: Sendable, Hashable {
  /// The PostScript name, such as `Helvetica-Bold`.
  public var name: String?
  /// The family name, when archived (UIKit).
  public var family: String?
  /// The point size.
  public var size: Double?
  /// The traits bit mask as archived (`NSfFlags` or `UIFontTraits`).
  public var traits: Int64?
  /// Whether UIKit archived it as the system font.
  public var isSystemFont: Bool?
  /// Every other encoded key, in archive order.
  public var otherFields: [ArchivedField]

  public init(
    name: String? = nil, family: String? = nil, size: Double? = nil, traits: Int64? = nil,
    isSystemFont: Bool? = nil, otherFields: [ArchivedField] = []
  ) {
    self.name = name
    self.family = family
    self.size = size
    self.traits = traits
    self.isSystemFont = isSystemFont
    self.otherFields = otherFields
  }
}
