/// Why a value could not be archived.
public enum KeyedArchiveEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The value nests deeper than the encoder's limit.
  case nestingTooDeep(limit: Int)
  /// The value holds a kind of object this encoder cannot write.
  case unsupported(String)

  public var description: String {
    switch self {
    case .nestingTooDeep(let limit):
      return "the message nests more than \(limit) levels deep; flatten it before passing it"
    case .unsupported(let what):
      return "cannot archive \(what); pass the archive's bytes instead"
    }
  }
}
