import PropertyList

/// A data value whose bytes are themselves a property list (for example an archive nested inside
/// another); inspect ``data`` to open it.
public struct EmbeddedPropertyList: Sendable, Hashable {
  /// The `$objects` index of the object whose field holds or refers to the data (`nil` for a
  /// plain property list and for `$top`).
  public var object: Int?
  /// The field (or dictionary key, or `$top` key) that holds or refers to the data, when there
  /// is one; an `NSData` object or a data object of its own is named by the field referring to it.
  public var key: String?
  public var format: PropertyListFormat
  public var data: [UInt8]

  public init(object: Int?, key: String?, format: PropertyListFormat, data: [UInt8]) {
    self.object = object
    self.key = key
    self.format = format
    self.data = data
  }
}

extension EmbeddedPropertyList {
  /// `data` as an embedded property list when its bytes start like one (binary or XML), else
  /// `nil`; only the start is examined.
  package init?(_ data: [UInt8], object: Int?, key: String?) {
    guard data.count >= 8 else { return nil }
    if PropertyListReader.isBinary(data) {
      self.init(object: object, key: key, format: .binary, data: data)
    } else if PropertyListReader.looksLikeXML(data) {
      self.init(object: object, key: key, format: .xml, data: data)
    } else {
      return nil
    }
  }
}
