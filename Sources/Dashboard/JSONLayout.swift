/// Indents one-line JSON for reading, without parsing it: braces and brackets open lines,
/// commas end them, strings are copied as they are. Empty containers stay on one line.
enum JSONLayout {
  /// The first `limit` lines of `json`, indented, and how many lines came after them (counted,
  /// not built).
  static func indented(_ json: String, indent: Int = 2, limit: Int = ValueTree.rowLimit) -> (
    lines: [String], omitted: Int
  ) {
    var lines: [String] = []
    var omitted = 0
    var line = ""
    var lineHasText = false
    var depth = 0
    var inString = false
    var escaped = false
    let characters = Array(json)
    var index = 0
    func put(_ character: Character) {
      lineHasText = true
      if lines.count < limit { line.append(character) }
    }
    func newLine() {
      if lineHasText {
        if lines.count < limit { lines.append(line) } else { omitted += 1 }
      }
      lineHasText = false
      line = lines.count < limit ? String(repeating: " ", count: depth * indent) : ""
    }
    while index < characters.count {
      let character = characters[index]
      defer { index += 1 }
      if inString {
        put(character)
        if escaped {
          escaped = false
        } else if character == "\\" {
          escaped = true
        } else if character == "\"" {
          inString = false
        }
        continue
      }
      switch character {
      case "\"":
        inString = true
        put(character)
      case "{", "[":
        let closing: Character = character == "{" ? "}" : "]"
        if index + 1 < characters.count && characters[index + 1] == closing {
          put(character)
          put(closing)
          index += 1
        } else {
          put(character)
          depth += 1
          newLine()
        }
      case "}", "]":
        depth = max(depth - 1, 0)
        newLine()
        put(character)
      case ",":
        put(character)
        newLine()
      case ":":
        put(":")
        put(" ")
      case " ", "\n", "\t", "\r":
        break
      default:
        put(character)
      }
    }
    newLine()
    return (lines, omitted)
  }
}
