import ArchivedValues
import TerminalScreen

/// Turns decoded values into the contents pane's lines and into flat (path, value) fields for
/// diffs and sparklines. Text from the archive is escaped for the terminal here.
enum ValueTree {
  /// The most rows a view builds (tree lines, JSON lines, diff changes): a frame stays cheap,
  /// and the rows past it are counted and said in a last row.
  static let rowLimit = 20_000
  /// The deepest level shown as a branch; a container below it is shown on one line.
  static let depthLimit = 64

  /// The tree lines of `value`, with branches in `collapsed` (by path) closed: at most `limit`,
  /// then one line saying how many more there are.
  static func lines(
    of value: ArchivedValue, label: String, collapsed: Set<String>, limit: Int = rowLimit
  ) -> [ContentLine] {
    var builder = Builder(collapsed: collapsed, limit: limit)
    builder.append(value, key: label, path: "root", depth: 0)
    if builder.omitted > 0 { builder.lines.append(omissionLine(builder.omitted, "rows", limit: limit)) }
    return builder.lines
  }

  /// `… 12,345 more rows not shown (limit 20,000)`.
  static func omissionLine(_ count: Int, _ noun: String, limit: Int) -> ContentLine {
    .text(
      "… \(Formatting.count(count)) more \(noun) not shown (limit \(Formatting.count(limit)))", "list.dim")
  }

  private struct Builder {
    let collapsed: Set<String>
    let limit: Int
    var lines: [ContentLine] = []
    /// Rows past the limit, counted and not built.
    var omitted = 0

    mutating func append(_ value: ArchivedValue, key: String, path: String, depth: Int) {
      guard lines.count < limit else {
        omitted +=
          collapsed.isEmpty ? rowCount(value, depth: depth) : rowCount(value, path: path, depth: depth)
        return
      }
      let children = ValueTree.children(of: value)
      var line = ContentLine(indent: depth * 2, [], path: path)
      line.pieces.append(.init(DisplayText.escaped(key), "contents.key"))
      line.pieces.append(.init(": ", "contents"))
      if let children, depth < depthLimit {
        line.isBranch = true
        line.isCollapsed = collapsed.contains(path)
        line.pieces.insert(.init(line.isCollapsed ? "▸ " : "▾ ", "contents"), at: 0)
        line.pieces.append(.init(heading(of: value, count: children.count), "contents.class"))
        lines.append(line)
        guard !line.isCollapsed else { return }
        for child in children {
          append(child.value, key: child.key, path: path + child.pathSuffix, depth: depth + 1)
        }
      } else {
        line.pieces.insert(.init("  ", "contents"), at: 0)
        line.pieces.append(.init(value.summary(width: 200), role(of: value)))
        line.number = number(of: value)
        lines.append(line)
      }
    }

    /// The rows `value` would take with nothing collapsed, counted without building them.
    private func rowCount(_ value: ArchivedValue, depth: Int) -> Int {
      guard depth < depthLimit else { return 1 }
      switch value {
      case .dictionary(let entries): return entries.reduce(1) { $0 + rowCount($1.value, depth: depth + 1) }
      case .array(let items), .set(let items), .orderedSet(let items):
        return items.reduce(1) { $0 + rowCount($1, depth: depth + 1) }
      case .countedSet(let elements): return elements.reduce(1) { $0 + rowCount($1.value, depth: depth + 1) }
      case .object(let object): return object.fields.reduce(1) { $0 + rowCount($1.value, depth: depth + 1) }
      case .shared(let shared): return rowCount(shared.value, depth: depth)
      case .attributedString(let string):
        return string.runs.reduce(2) { $0 + rowCount($1.attributes, depth: depth + 1) }
      default: return 1
      }
    }

    /// The rows `value` at `path` would take, with the branches in `collapsed` closed.
    private func rowCount(_ value: ArchivedValue, path: String, depth: Int) -> Int {
      guard let children = ValueTree.children(of: value), depth < depthLimit, !collapsed.contains(path) else {
        return 1
      }
      return children.reduce(1) { $0 + rowCount($1.value, path: path + $1.pathSuffix, depth: depth + 1) }
    }
  }

  struct Child {
    var key: String
    var pathSuffix: String
    var value: ArchivedValue
  }

  /// The children of a container value, or `nil` for a leaf.
  static func children(of value: ArchivedValue) -> [Child]? {
    switch value {
    case .dictionary(let entries):
      return entries.map { entry in
        let key: String
        if case .string(let text) = entry.key { key = text } else { key = entry.key.summary(width: 40) }
        return Child(key: key, pathSuffix: "." + key, value: entry.value)
      }
    case .array(let items), .set(let items), .orderedSet(let items):
      return items.enumerated().map {
        Child(key: "[\($0.offset)]", pathSuffix: "[\($0.offset)]", value: $0.element)
      }
    case .object(let object):
      return object.fields.map { Child(key: $0.key, pathSuffix: "." + $0.key, value: $0.value) }
    case .shared(let shared):
      return children(of: shared.value)
    case .countedSet(let elements):
      // The count is in the path too, so that the diff reports a count that changed.
      return elements.enumerated().map { index, element in
        Child(key: "\(element.count)×", pathSuffix: "[\(index)]×\(element.count)", value: element.value)
      }
    case .attributedString(let string):
      // The text, then each run's attributes under its range, as `read` shows them. The range
      // is in the path, so that the diff reports a run that moved, not only one whose attributes
      // changed.
      return [Child(key: "string", pathSuffix: ".string", value: .string(string.text))]
        + string.runs.map { run in
          let range = "\(run.location)..<\(run.location &+ run.length)"
          return Child(key: range, pathSuffix: "[" + range + "]", value: run.attributes)
        }
    default:
      return nil
    }
  }

  static func heading(of value: ArchivedValue, count: Int) -> String {
    switch value {
    case .dictionary: return "{\(count)}"
    case .array: return "[\(count)]"
    case .set: return "set [\(count)]"
    case .orderedSet: return "ordered set [\(count)]"
    case .countedSet: return "counted set [\(count)]"
    case .object(let object): return DisplayText.escaped(object.className)
    case .shared(let shared): return heading(of: shared.value, count: count) + " @\(shared.id)"
    case .attributedString(let string):
      return "attributed string, \(string.runs.count) " + (string.runs.count == 1 ? "run" : "runs")
    default: return ""
    }
  }

  static func role(of value: ArchivedValue) -> StyleRole {
    switch value {
    case .string: return "contents.string"
    case .integer, .unsignedInteger, .real, .decimal, .boolean: return "contents.number"
    case .reference: return "contents.reference"
    default: return "contents"
    }
  }

  /// The value as a number, for sparklines.
  static func number(of value: ArchivedValue) -> Double? {
    switch value {
    case .integer(let number): return Double(number)
    case .unsignedInteger(let number): return Double(number)
    case .real(let number): return number.isFinite ? number : nil
    case .decimal(let decimal): return decimal.approximateValue
    case .boolean(let flag): return flag ? 1 : 0
    case .shared(let shared): return number(of: shared.value)
    default: return nil
    }
  }

  /// The value at `path`, for a field's sparkline.
  static func value(at path: String, in root: ArchivedValue) -> ArchivedValue? {
    if path == "root" { return root }
    var found: ArchivedValue?
    func walk(_ value: ArchivedValue, _ current: String, _ depth: Int) {
      guard found == nil, depth < depthLimit, path.hasPrefix(current) else { return }
      if current == path {
        found = value
        return
      }
      for child in children(of: value) ?? [] { walk(child.value, current + child.pathSuffix, depth + 1) }
    }
    walk(root, "root", 0)
    return found
  }
}
