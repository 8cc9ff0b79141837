import ArchivedValues
import PropertyList

/// `NSColor`/`UIColor` and `NSFont`/`UIFont` (and their subclasses), from the keys AppKit and
/// UIKit write; keys they do not model are kept as ``ArchivedColor/otherFields`` and
/// ``ArchivedFont/otherFields``, never dropped.
extension ArchiveResolver {
  mutating func decodeColor(_ fields: Fields, object: Int) throws(KeyedArchiveError) -> ArchivedValue? {
    var space: Int64?
    var text: (model: ArchivedColor.Model, numbers: [Double])?
    var uiKit = [String: Double]()
    var catalog: String?
    var name: String?
    var others = [PropertyListEntry]()
    for entry in fields.entries where entry.key != "$class" {
      switch entry.key {
      case "NSColorSpace":
        guard case .integer(let number)? = peek(entry.value) else { return nil }
        space = number
      case "NSRGB", "NSWhite", "NSCMYK":
        let model: ArchivedColor.Model = entry.key == "NSRGB" ? .rgb : entry.key == "NSWhite" ? .white : .cmyk
        guard text == nil, let data = peekData(entry.value), let numbers = Self.asciiComponents(data),
          numbers.count == model.componentCount || numbers.count == model.componentCount + 1
        else { return nil }
        text = (model, numbers)
      case "UIRed", "UIGreen", "UIBlue", "UIAlpha", "UIWhite":
        guard let number = peek(entry.value).flatMap(Self.real) else { return nil }
        uiKit[entry.key] = number
      case "NSCatalogName":
        guard let string = peekString(entry.value) else { return nil }
        catalog = string
      case "NSColorName", "UISystemColorName":
        guard let string = peekString(entry.value) else { return nil }
        name = string
      default:
        others.append(entry)
      }
    }
    var color: ArchivedColor
    if let text {
      let count = text.model.componentCount
      color = ArchivedColor(
        model: text.model, components: Array(text.numbers.prefix(count)),
        alpha: text.numbers.count > count ? text.numbers[count] : nil)
    } else if let red = uiKit["UIRed"], let green = uiKit["UIGreen"], let blue = uiKit["UIBlue"],
      uiKit["UIWhite"] == nil
    {
      color = ArchivedColor(model: .rgb, components: [red, green, blue], alpha: uiKit["UIAlpha"])
    } else if let white = uiKit["UIWhite"], uiKit.count == (uiKit["UIAlpha"] == nil ? 1 : 2) {
      color = ArchivedColor(model: .white, components: [white], alpha: uiKit["UIAlpha"])
    } else if !uiKit.isEmpty {
      return nil
    } else if name != nil || catalog != nil {
      color = ArchivedColor(model: .named)
    } else if space != nil {
      color = ArchivedColor(model: .other)
    } else {
      return nil
    }
    color.space = space.map(Self.colorSpaceName)
    color.catalog = catalog
    color.name = name
    for entry in others {
      color.otherFields.append(
        ArchivedField(key: entry.key, value: try convert(entry.value, object: object, key: entry.key)))
    }
    return .color(color)
  }

  mutating func decodeFont(_ fields: Fields, object: Int) throws(KeyedArchiveError) -> ArchivedValue? {
    var font = ArchivedFont()
    var known = 0
    var others = [PropertyListEntry]()
    for entry in fields.entries where entry.key != "$class" {
      switch entry.key {
      case "NSName", "UIFontName":
        guard font.name == nil, let name = peekString(entry.value) else { return nil }
        font.name = name
      case "UIFontFamilyName":
        guard let family = peekString(entry.value) else { return nil }
        font.family = family
      case "NSSize", "UIFontPointSize":
        guard font.size == nil, let size = peek(entry.value).flatMap(Self.real) else { return nil }
        font.size = size
      case "NSfFlags", "UIFontTraits":
        guard font.traits == nil, case .integer(let traits)? = peek(entry.value) else { return nil }
        font.traits = traits
      case "UISystemFont":
        guard case .boolean(let flag)? = peek(entry.value) else { return nil }
        font.isSystemFont = flag
      default:
        others.append(entry)
        continue
      }
      known += 1
    }
    guard known > 0, font.name != nil || font.size != nil else { return nil }
    for entry in others {
      font.otherFields.append(
        ArchivedField(key: entry.key, value: try convert(entry.value, object: object, key: entry.key)))
    }
    return .font(font)
  }

  /// AppKit's `NSColorSpace` numbers.
  static func colorSpaceName(_ number: Int64) -> String {
    switch number {
    case 1: return "calibrated RGB"
    case 2: return "device RGB"
    case 3: return "calibrated white"
    case 4: return "device white"
    case 5: return "device CMYK"
    case 6: return "named"
    case 7: return "pattern"
    case 10: return "custom"
    default: return "colour space \(number)"
    }
  }

  /// Components written as ASCII decimal numbers separated by spaces, perhaps NUL-terminated.
  static func asciiComponents(_ data: some Collection<UInt8>) -> [Double]? {
    var bytes = Array(data)
    while bytes.last == 0 { bytes.removeLast() }
    guard bytes.count <= 256, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
    var result = [Double]()
    for token in bytes.split(separator: 0x20) {
      guard let number = Double(String(decoding: token, as: UTF8.self)) else { return nil }
      result.append(number)
    }
    return result
  }
}

extension ArchivedColor.Model {
  var componentCount: Int {
    switch self {
    case .rgb: return 3
    case .white: return 1
    case .cmyk: return 4
    case .named, .other: return 0
    }
  }
}
