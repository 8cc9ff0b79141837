/// What is wrong with a theme: each message names the file and line and says what to fix
/// (`dark.theme:12: unknown colour 'blu'`).
public enum ThemeError: Error, Sendable, Hashable, CustomStringConvertible {
  /// A line that is neither a comment nor `role = style`.
  case malformedLine(file: String, line: Int, text: String)
  /// A role the dashboard does not paint (see ``Theme/knownRoles``).
  case unknownRole(file: String, line: Int, role: String)
  /// A role given twice.
  case duplicateRole(file: String, line: Int, role: String)
  /// A colour that is not a name, `#rrggbb`, `color(0-255)` or `default`.
  case unknownColor(file: String, line: Int, text: String)
  /// A word that is not `fg:`, `bg:` or an attribute.
  case unknownAttribute(file: String, line: Int, text: String)
  /// A theme asked for by name that neither the user's theme directory nor the shipped themes have.
  case unknownTheme(name: String, available: [String])
  /// A theme file that could not be read.
  case unreadable(file: String, reason: String)

  public var description: String {
    switch self {
    case .malformedLine(let file, let line, let text):
      "\(file):\(line): expected 'role = fg:COLOUR bg:COLOUR ATTRIBUTES', found '\(text)'"
    case .unknownRole(let file, let line, let role):
      "\(file):\(line): unknown role '\(role)' (the roles are listed in the README's Themes section)"
    case .duplicateRole(let file, let line, let role):
      "\(file):\(line): role '\(role)' is already given above; keep one line per role"
    case .unknownColor(let file, let line, let text):
      "\(file):\(line): unknown colour '\(text)' (use a name such as red or bright-blue, #rrggbb, "
        + "color(0-255) or default)"
    case .unknownAttribute(let file, let line, let text):
      "\(file):\(line): unknown word '\(text)' (use fg:COLOUR, bg:COLOUR, bold, dim, italic, underline "
        + "or reverse)"
    case .unknownTheme(let name, let available):
      "unknown theme '\(name)' (available: \(available.joined(separator: ", ")); or give a path to a "
        + ".theme file)"
    case .unreadable(let file, let reason):
      "cannot read theme \(file): \(reason)"
    }
  }
}
