/// Why a value could not be written as a property list.
public enum PropertyListWriteError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The tree nests deeper than the writer's limit.
  case nestingTooDeep(limit: Int)

  public var description: String {
    switch self {
    case .nestingTooDeep(let limit):
      return "the value nests more than \(limit) levels deep; flatten it before passing it"
    }
  }
}
