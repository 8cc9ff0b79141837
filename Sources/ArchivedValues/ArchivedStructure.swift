/// A geometric or range structure archived in an `NSValue` (its `NS.special` kinds).
public enum ArchivedStructure: Sendable, Hashable {
  case point(x: Double, y: Double)
  case size(width: Double, height: Double)
  case rect(x: Double, y: Double, width: Double, height: Double)
  case range(location: UInt64, length: UInt64)
  case edgeInsets(top: Double, left: Double, bottom: Double, right: Double)
}
