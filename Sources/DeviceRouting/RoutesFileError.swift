import ArchivedValues

/// One problem of a routes file, where it is: the file, the line (from 1) and, where it helps,
/// the column (from 1, in characters).
public struct RoutesFileError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file's name as given to the parser (not escaped).
  public var file: String
  public var line: Int
  public var column: Int?
  /// What is wrong, in words; the parts of the file it quotes are escaped.
  public var message: String

  public init(file: String, line: Int, column: Int?, message: String) {
    self.file = file
    self.line = line
    self.column = column
    self.message = message
  }

  /// `FILE:LINE:COLUMN: message`, the file name escaped for a terminal.
  public var description: String {
    let place = column.map { "\(line):\($0)" } ?? "\(line)"
    return "\(DisplayText.name(file)):\(place): \(message)"
  }
}

/// Every problem of a routes file, in line order: a file with errors is refused whole.
public struct RoutesFileErrors: Error, Sendable, Equatable, CustomStringConvertible {
  public var errors: [RoutesFileError]

  public init(errors: [RoutesFileError]) { self.errors = errors }

  /// One line per problem.
  public var description: String { errors.map(\.description).joined(separator: "\n") }
}
