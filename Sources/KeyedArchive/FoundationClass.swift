/// The Foundation classes shown natively.
enum FoundationClass {
  case array, set, orderedSet, countedSet, dictionary, string, date, data, url, uuid, null, value
  case attributedString, indexSet, indexPath, color, font, decimalNumber

  /// The native view of a class: by its own name for Foundation's classes, by any name in its
  /// chain for colours and fonts (which AppKit and UIKit archive as private subclasses).
  init?(name: String, chain: [String]) {
    if let kind = FoundationClass(name: name) {
      self = kind
      return
    }
    for ancestor in chain {
      switch ancestor {
      case "NSColor", "UIColor":
        self = .color
        return
      case "NSFont", "UIFont":
        self = .font
        return
      default: continue
      }
    }
    return nil
  }

  init?(name: String) {
    switch name {
    case "NSArray", "NSMutableArray": self = .array
    case "NSSet", "NSMutableSet": self = .set
    case "NSOrderedSet", "NSMutableOrderedSet": self = .orderedSet
    case "NSCountedSet": self = .countedSet
    case "NSDictionary", "NSMutableDictionary": self = .dictionary
    case "NSString", "NSMutableString": self = .string
    case "NSDate": self = .date
    case "NSData", "NSMutableData": self = .data
    case "NSURL": self = .url
    case "NSUUID": self = .uuid
    case "NSNull": self = .null
    case "NSValue": self = .value
    case "NSAttributedString", "NSMutableAttributedString": self = .attributedString
    case "NSIndexSet", "NSMutableIndexSet": self = .indexSet
    case "NSIndexPath": self = .indexPath
    // Nib files archive `NSDecimalNumberPlaceholder` with the same keys.
    case "NSDecimalNumber", "NSDecimalNumberPlaceholder": self = .decimalNumber
    default: return nil
    }
  }
}
