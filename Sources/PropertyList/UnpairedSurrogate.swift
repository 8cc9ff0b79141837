/// A string object of a binary property list whose UTF-16 holds surrogates that are not paired.
///
/// Apple's reader (`CFStringCreateWithCharacters`) keeps such code units, and an app that cuts
/// an `NSString` inside an emoji archives them, so the string is read with each unpaired
/// surrogate replaced by U+FFFD rather than the whole file refused; this records where, so the
/// replacement is said rather than silent.
public struct UnpairedSurrogate: Sendable, Hashable, CustomStringConvertible {
  /// The string's object number in the property list.
  public var object: Int
  /// The first unpaired surrogate's index among the string's UTF-16 code units.
  public var unit: Int
  /// The first unpaired surrogate's value (0xD800 to 0xDFFF).
  public var value: UInt16
  /// How many unpaired surrogates the string holds.
  public var count: Int

  public init(object: Int, unit: Int, value: UInt16, count: Int) {
    self.object = object
    self.unit = unit
    self.value = value
    self.count = count
  }

  /// `string object 8 has an unpaired UTF-16 surrogate (0xd83d) at code unit 6, shown as U+FFFD`.
  public var description: String {
    let hex = String(value, radix: 16)
    let what =
      count == 1
      ? "an unpaired UTF-16 surrogate (0x\(hex)) at code unit \(unit), shown as U+FFFD"
      : "\(count) unpaired UTF-16 surrogates, the first (0x\(hex)) at code unit \(unit), shown as U+FFFD"
    return "string object \(object) of the property list has \(what)"
  }
}
