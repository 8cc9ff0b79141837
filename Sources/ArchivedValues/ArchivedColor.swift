/// An archived `NSColor` or `UIColor`, read from the keys AppKit and UIKit write.
///
/// AppKit writes components as ASCII text in data (`NSRGB`, `NSWhite`, `NSCMYK`) with an
/// `NSColorSpace` number; UIKit writes numbers (`UIRed`, `UIGreen`, `UIBlue`, `UIAlpha`,
/// `UIWhite`) or a system colour's name (`UISystemColorName`); named (catalog) colours carry
/// `NSCatalogName` and `NSColorName`.
public struct ArchivedColor: Sendable, Hashable {
  /// How the components are to be read.
  public enum Model: String, Sendable, Hashable {
    /// Red, green, blue.
    case rgb
    /// One grey level (0 black, 1 white).
    case white
    /// Cyan, magenta, yellow, black.
    case cmyk
    /// A colour known by name only (a catalog or system colour).
    case named
    /// Components in a colour space the inspector does not model (custom, pattern...).
    case other
  }

  public var model: Model
  /// The colour space as archived, such as `calibrated RGB` or `device white`; `nil` when the
  /// archive does not say.
  public var space: String?
  /// The components without alpha, in the model's order.
  public var components: [Double]
  /// The alpha component, when archived.
  public var alpha: Double?
  /// A named colour's catalog (`NSCatalogName`), such as `System`.
  public var catalog: String?
  /// A named colour's name (`NSColorName`, `UISystemColorName`).
  public var name: String?
  /// Every other encoded key (a fallback colour, a custom colour space...), in archive order.
  public var otherFields: [ArchivedField]

  public init(
    model: Model, space: String? = nil, components: [Double] = [], alpha: Double? = nil,
    catalog: String? = nil, name: String? = nil, otherFields: [ArchivedField] = []
  ) {
    self.model = model
    self.space = space
    self.components = components
    self.alpha = alpha
    self.catalog = catalog
    self.name = name
    self.otherFields = otherFields
  }

  /// `#rrggbb` for an RGB or white colour whose components lie in 0...1 (a swatch can draw it);
  /// `nil` for other models and for extended-range components.
  public var hex: String? {
    let rgb: [Double]
    switch model {
    case .rgb where components.count == 3: rgb = components
    case .white where components.count == 1: rgb = [components[0], components[0], components[0]]
    default: return nil
    }
    var text = "#"
    for component in rgb {
      guard component.isFinite, component >= 0, component <= 1 else { return nil }
      let byte = Int((component * 255).rounded())
      let digits = Array("0123456789abcdef")
      text.append(digits[byte >> 4])
      text.append(digits[byte & 0xF])
    }
    return text
  }
}
