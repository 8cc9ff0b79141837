/// An archived instance of a class, shown by its name, its class chain and its encoded fields.
public struct ArchivedObject: Sendable, Hashable {
  /// The class name as archived, such as `NSMeasurement`.
  public var className: String
  /// The class followed by its superclasses as archived (`$classes`), such as
  /// `["NSMeasurement", "NSObject"]`.
  public var classChain: [String]
  /// The encoded keys and values in archive order, without `$class`.
  public var fields: [ArchivedField]

  public init(className: String, classChain: [String], fields: [ArchivedField]) {
    self.className = className
    self.classChain = classChain
    self.fields = fields
  }
}
