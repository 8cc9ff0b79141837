import TerminalScreen

/// Reads the theme format: one role per line, `#` comments, an optional `name = ...` header.
///
/// ```
/// # Dark: the default theme.
/// name = dark
/// default = fg:#d0d0d0 bg:default
/// traffic.failed = fg:#d55e00 bold underline
/// ```
///
/// A style is any of `fg:COLOUR`, `bg:COLOUR` and the attributes `bold`, `dim`, `italic`,
/// `underline`, `reverse`, in any order; a colour is a name (`black`, `red`, `green`, `yellow`,
/// `blue`, `magenta`, `cyan`, `white`, each also `bright-...`), `#rrggbb`, `color(0-255)` or
/// `default` (the terminal's own). `role = inherit` says the role takes its parent's style on
/// purpose. Roles not given fall back along their dotted path. Pure: the
/// text comes in, a theme or the first error goes out.
public enum ThemeParser {
  /// The colour names, in ANSI order (0-7; `bright-` adds 8).
  static let colorNames = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

  /// Parses `text`, naming `file` in errors; the theme is named by its header, else `defaultName`.
  public static func parse(_ text: String, file: String, defaultName: String) throws(ThemeError) -> Theme {
    var name = defaultName
    var styles: [StyleRole: TextStyle] = [:]
    var inherited: Set<StyleRole> = []
    var lineNumber = 0
    // `isNewline`, not "\n": a CRLF file's "\r\n" is one Character.
    for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      lineNumber += 1
      // `#` also starts a colour: only a `#` at the start of a word begins a comment.
      let content = stripComment(String(rawLine))
      if content.isEmpty { continue }
      guard let equals = content.firstIndex(of: "=") else {
        throw .malformedLine(file: file, line: lineNumber, text: content)
      }
      let key = trimmed(content[..<equals])
      let value = trimmed(content[content.index(after: equals)...])
      if key.utf8.elementsEqual("name".utf8) {
        guard !value.isEmpty else { throw .emptyName(file: file, line: lineNumber) }
        name = value
        continue
      }
      guard let role = Theme.knownRoles.first(where: { $0.name.utf8.elementsEqual(key.utf8) }) else {
        throw key.isEmpty || key.contains(" ")
          ? .malformedLine(file: file, line: lineNumber, text: content)
          : .unknownRole(file: file, line: lineNumber, role: key)
      }
      if styles[role] != nil || inherited.contains(role) {
        throw .duplicateRole(file: file, line: lineNumber, role: key)
      }
      if value == "inherit" {
        guard role.parent != nil else { throw .nothingToInherit(file: file, line: lineNumber, role: key) }
        inherited.insert(role)
      } else {
        styles[role] = try style(value, file: file, line: lineNumber)
      }
    }
    return Theme(name: name, styles: styles, inherited: inherited)
  }

  /// One style: `fg:COLOUR bg:COLOUR` and attribute words.
  static func style(_ text: String, file: String, line: Int) throws(ThemeError) -> TextStyle {
    var style = TextStyle.plain
    var given: Set<String> = []
    for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
      let word = String(word)
      if word.hasPrefix("fg:") || word.hasPrefix("bg:") {
        let prefix = String(word.prefix(3))
        guard given.insert(prefix).inserted else {
          throw .repeatedColor(file: file, line: line, prefix: prefix)
        }
        let color = try color(String(word.dropFirst(3)), file: file, line: line)
        if prefix == "fg:" { style.foreground = color } else { style.background = color }
      } else {
        switch word {
        case "inherit": throw .inheritNotAlone(file: file, line: line)
        case "bold": style.attributes.insert(.bold)
        case "dim": style.attributes.insert(.dim)
        case "italic": style.attributes.insert(.italic)
        case "underline": style.attributes.insert(.underline)
        case "reverse": style.attributes.insert(.reverse)
        default: throw .unknownAttribute(file: file, line: line, text: word)
        }
      }
    }
    return style
  }

  /// One colour: a name, `bright-NAME`, `#rrggbb`, `color(N)` or `default`.
  static func color(_ text: String, file: String, line: Int) throws(ThemeError) -> TerminalColor {
    if text == "default" { return .terminalDefault }
    if let index = colorNames.firstIndex(of: text) { return .ansi(UInt8(index)) }
    if text.hasPrefix("bright-"), let index = colorNames.firstIndex(of: String(text.dropFirst(7))) {
      return .ansi(UInt8(index + 8))
    }
    let utf8 = Array(text.utf8)
    if utf8.count == 7, utf8[0] == UInt8(ascii: "#"), let value = UInt32(text.dropFirst(), radix: 16),
      utf8.dropFirst().allSatisfy({ isHexDigit($0) })
    {
      return .rgb(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }
    if text.hasPrefix("color("), text.hasSuffix(")") {
      let number = text.dropFirst(6).dropLast()
      if !number.isEmpty, number.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
        let value = UInt8(number)
      {
        return .indexed(value)
      }
    }
    throw .unknownColor(file: file, line: line, text: text)
  }

  static func isHexDigit(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
      UInt8(ascii: "A")...UInt8(ascii: "F"):
      true
    default: false
    }
  }

  /// The line without its comment: from a `#` that starts a word (not `fg:#rrggbb`).
  static func stripComment(_ line: String) -> String {
    var previous: Character = " "
    var out = ""
    for character in line {
      if character == "#", previous == " " || previous == "\t" { break }
      out.append(character)
      previous = character
    }
    return trimmed(out)
  }

  static func trimmed(_ text: some StringProtocol) -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    guard let first = text.firstIndex(where: { !isSpace($0) }),
      let last = text.lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(text[first...last])
  }
}
