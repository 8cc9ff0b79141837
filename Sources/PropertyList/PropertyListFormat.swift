/// The two on-disk forms of a property list.
public enum PropertyListFormat: String, Sendable, Hashable {
  /// `bplist00`, as `NSKeyedArchiver` writes by default.
  case binary
  /// `<plist version="1.0">` XML.
  case xml
}
