/// Indents one-line JSON for reading, without parsing it: braces and brackets open lines,
/// commas end them, strings are copied as they are. Empty containers stay on one line.
enum JSONLayout {
  static func indented(_ json: String, indent: Int = 2) -> [String] {
    var lines: [String] = []
    var line = ""
    var depth = 0
    var inString = false
    var escaped = false
    let characters = Array(json)
    var index = 0
    func newLine() {
      if !line.isEmpty { lines.append(line) }
      line = String(repeating: " ", count: depth * indent)
    }
    while index < characters.count {
      let character = characters[index]
      defer { index += 1 }
      if inString {
        line.append(character)
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
        line.append(character)
      case "{", "[":
        let closing: Character = character == "{" ? "}" : "]"
        if index + 1 < characters.count && characters[index + 1] == closing {
          line.append(character)
          line.append(closing)
          index += 1
        } else {
          line.append(character)
          depth += 1
          newLine()
        }
      case "}", "]":
        depth = max(depth - 1, 0)
        newLine()
        line.append(character)
      case ",":
        line.append(character)
        newLine()
      case ":":
        line.append(": ")
      case " ", "\n", "\t", "\r":
        break
      default:
        line.append(character)
      }
      if lines.count > 20_000 { break }
    }
    if !line.trimmingCharacters(in: " ").isEmpty { lines.append(line) }
    return lines
  }
}

extension String {
  fileprivate func trimmingCharacters(in set: Character) -> Substring {
    self.drop { $0 == set }
  }
}
