/// One word of a routes file's line: plain (a run of characters other than spaces and tabs) or
/// quoted (`"…"`, where `\"` is a quote and `\\` a backslash; any other backslash stays, so
/// `"\d+ \w"` is the pattern `\d+ \w`). A `#` that starts a word starts a comment.
struct RouteLineToken: Equatable {
  /// The word, quotes and escapes resolved.
  var text: String
  /// The column of each of ``text``'s Unicode scalars in the line, from 1.
  var columns: [Int]
  /// The column the word starts at (its quote, when quoted), from 1.
  var column: Int

  /// The column of `text`'s scalar `offset`, or the word's end when past it.
  func column(ofScalar offset: Int) -> Int {
    if offset < columns.count { return columns[offset] }
    return (columns.last ?? column) + 1
  }

  /// Why a line cannot be split into words, and where.
  struct Problem: Error, Equatable {
    var column: Int
    var message: String
  }

  /// The words of `line`, up to a comment.
  static func split(_ line: String) throws(Problem) -> [RouteLineToken] {
    let scalars = Array(line.unicodeScalars)
    var tokens: [RouteLineToken] = []
    var position = 0
    func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }
    while position < scalars.count {
      if isSpace(scalars[position]) {
        position += 1
        continue
      }
      if scalars[position] == "#" { break }
      let start = position
      var text = String.UnicodeScalarView()
      var columns: [Int] = []
      if scalars[position] == "\"" {
        position += 1
        var closed = false
        while position < scalars.count {
          let scalar = scalars[position]
          if scalar == "\"" {
            closed = true
            position += 1
            break
          }
          if scalar == "\\", position + 1 < scalars.count,
            scalars[position + 1] == "\"" || scalars[position + 1] == "\\"
          {
            text.append(scalars[position + 1])
            columns.append(position + 2)
            position += 2
            continue
          }
          text.append(scalar)
          columns.append(position + 1)
          position += 1
        }
        guard closed else {
          throw Problem(
            column: start + 1, message: "a quoted word is not closed (no \" before the line ends)")
        }
        if position < scalars.count, !isSpace(scalars[position]) {
          throw Problem(
            column: position + 1, message: "a quoted word must be followed by a space or the end of the line")
        }
      } else {
        while position < scalars.count, !isSpace(scalars[position]) {
          text.append(scalars[position])
          columns.append(position + 1)
          position += 1
        }
      }
      tokens.append(RouteLineToken(text: String(text), columns: columns, column: start + 1))
    }
    return tokens
  }
}
