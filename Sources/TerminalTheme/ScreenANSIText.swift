import TerminalScreen

extension TextStyle {
  /// The SGR escape sequence that draws this style from a reset terminal: `ESC [ 0 ; ... m`.
  public var selectGraphicRendition: String {
    var codes = ["0"]
    let attributeCodes: [(TextAttributes, String)] = [
      (.bold, "1"), (.dim, "2"), (.italic, "3"), (.underline, "4"), (.reverse, "7"),
    ]
    for (attribute, code) in attributeCodes where attributes.contains(attribute) { codes.append(code) }
    if let code = Self.code(foreground, base: 30) { codes.append(code) }
    if let code = Self.code(background, base: 40) { codes.append(code) }
    return "\u{1B}[" + codes.joined(separator: ";") + "m"
  }

  /// The SGR parameters of `color` as a foreground (`base` 30) or background (40).
  static func code(_ color: TerminalColor, base: Int) -> String? {
    switch color {
    case .terminalDefault: nil
    case .ansi(let index) where index < 8: "\(base + Int(index))"
    case .ansi(let index): "\(base + 60 + Int(index % 16) - 8)"
    case .indexed(let index): "\(base + 8);5;\(index)"
    case .rgb(let red, let green, let blue): "\(base + 8);2;\(red);\(green);\(blue)"
    }
  }
}

extension Screen {
  /// The frame as text with SGR escape sequences from `theme`'s styles (reduce the theme to the
  /// terminal's capability first): what `snapshot --ansi` prints. Each row starts from a reset,
  /// changes style only where the role's style changes, and ends with a reset and a newline.
  /// Views escape text from disk before it reaches a cell; a control character set into a cell
  /// directly is written as U+FFFD, never as itself.
  public func ansiText(theme: Theme) -> String {
    var out = ""
    var cache: [StyleRole: String] = [:]
    for row in 0..<height {
      var current: String?
      for column in 0..<width {
        let cell = self[row, column]
        if cell.isContinuation { continue }
        let sequence =
          cache[cell.role]
          ?? {
            let sequence = theme.style(for: cell.role).selectGraphicRendition
            cache[cell.role] = sequence
            return sequence
          }()
        if sequence != current {
          out += sequence
          current = sequence
        }
        // A control character set into a cell directly must not reach the terminal.
        for character in cell.text {
          out += TerminalWidth.isControl(character) ? "\u{FFFD}" : String(character)
        }
      }
      out += "\u{1B}[0m\n"
    }
    return out
  }
}
