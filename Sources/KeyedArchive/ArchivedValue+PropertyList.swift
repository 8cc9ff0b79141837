import PropertyList

extension ArchivedValue {
  /// The archived form of a property-list scalar (a string, number, boolean or date, which
  /// archives hold as they are); `nil` for data, references and containers, which decoding
  /// treats on their own.
  init?(scalar value: PropertyListValue) {
    switch value {
    case .string(let text): self = .string(text)
    case .integer(let number): self = .integer(number)
    case .unsignedInteger(let number): self = .unsignedInteger(number)
    case .real(let number): self = .real(number)
    case .boolean(let flag): self = .boolean(flag)
    case .date(let date): self = .date(date)
    case .data, .uid, .array, .dictionary: return nil
    }
  }
}
