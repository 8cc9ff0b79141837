/// An `NSValue` of an Objective-C type without a native case (an array such as `[3i]`, a struct
/// such as `{CGPoint=dd}`, a scalar), decoded as its type encoding describes.
public struct ArchivedTypedValue: Sendable, Hashable {
  /// The Objective-C type encoding as archived, such as `{CGPoint=dd}`.
  public var encoding: String
  /// The bytes read as ``encoding`` describes.
  public var value: TypedElement

  public init(encoding: String, value: TypedElement) {
    self.encoding = encoding
    self.value = value
  }
}
