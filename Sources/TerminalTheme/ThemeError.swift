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
  /// `fg:` or `bg:` given twice in one style.
  case repeatedColor(file: String, line: Int, prefix: String)
  /// `inherit` with other words: it stands for the whole style.
  case inheritNotAlone(file: String, line: Int)
  /// `default = inherit`: the root role has no parent.
  case nothingToInherit(file: String, line: Int, role: String)
  /// `name =` with nothing after it.
  case emptyName(file: String, line: Int)
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
    case .repeatedColor(let file, let line, let prefix):
      "\(file):\(line): '\(prefix)' is given twice; keep one"
    case .inheritNotAlone(let file, let line):
      "\(file):\(line): 'inherit' stands alone (write 'role = inherit', or give the style itself)"
    case .nothingToInherit(let file, let line, let role):
      "\(file):\(line): '\(role)' has no parent to inherit from; give it a style such as fg:default bg:default"
    case .emptyName(let file, let line):
      "\(file):\(line): 'name =' needs a name (or leave the line out to use the file's name)"
    case .unknownTheme(let name, let available):
      "unknown theme '\(name)' (available: \(available.joined(separator: ", ")); or give a path to a "
        + ".theme file)"
    case .unreadable(let file, let reason):
      "cannot read theme \(file): \(reason)"
    }
  }
}
