import ArchivedValues
import TerminalScreen

/// Turns decoded values into the contents pane's lines and into flat (path, value) fields for
/// diffs and sparklines. Text from the archive is escaped for the terminal here.
enum ValueTree {
  /// The tree lines of `value`, with branches in `collapsed` (by path) closed.
  static func lines(of value: ArchivedValue, label: String, collapsed: Set<String>) -> [ContentLine] {
    var lines: [ContentLine] = []
    append(value, key: label, path: "root", depth: 0, collapsed: collapsed, into: &lines)
    return lines
  }

  private static func append(
    _ value: ArchivedValue, key: String, path: String, depth: Int, collapsed: Set<String>,
    into lines: inout [ContentLine]
  ) {
    guard lines.count < 20_000 else { return }
    let children = self.children(of: value)
    var line = ContentLine(indent: depth * 2, [], path: path)
    line.pieces.append(.init(DisplayText.escaped(key), "contents.key"))
    line.pieces.append(.init(": ", "contents"))
    if let children, depth < 64 {
      line.isBranch = true
      line.isCollapsed = collapsed.contains(path)
      line.pieces.insert(.init(line.isCollapsed ? "▸ " : "▾ ", "contents"), at: 0)
      line.pieces.append(.init(heading(of: value, count: children.count), "contents.class"))
      lines.append(line)
      guard !line.isCollapsed else { return }
      for child in children {
        append(
          child.value, key: child.key, path: path + child.pathSuffix, depth: depth + 1, collapsed: collapsed,
          into: &lines)
      }
    } else {
      line.pieces.insert(.init("  ", "contents"), at: 0)
      line.pieces.append(.init(value.summary(width: 200), role(of: value)))
      line.number = number(of: value)
      lines.append(line)
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
    default:
      return nil
    }
  }

  private static func heading(of value: ArchivedValue, count: Int) -> String {
    switch value {
    case .dictionary: return "{\(count)}"
    case .array: return "[\(count)]"
    case .set: return "set [\(count)]"
    case .orderedSet: return "ordered set [\(count)]"
    case .object(let object): return DisplayText.escaped(object.className)
    case .shared(let shared): return heading(of: shared.value, count: count) + " @\(shared.id)"
    default: return ""
    }
  }

  private static func role(of value: ArchivedValue) -> StyleRole {
    switch value {
    case .string: return "contents.string"
    case .integer, .unsignedInteger, .real, .boolean: return "contents.number"
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
    case .boolean(let flag): return flag ? 1 : 0
    case .shared(let shared): return number(of: shared.value)
    default: return nil
    }
  }

  /// Every leaf of `value` as (path, one-line text), in order: what a diff compares.
  static func fields(of value: ArchivedValue) -> [(path: String, text: String)] {
    var out: [(String, String)] = []
    collect(value, path: "root", depth: 0, into: &out)
    return out
  }

  private static func collect(
    _ value: ArchivedValue, path: String, depth: Int, into out: inout [(String, String)]
  ) {
    guard out.count < 20_000 else { return }
    if let children = children(of: value), depth < 64 {
      if children.isEmpty { out.append((path, heading(of: value, count: 0))) }
      for child in children {
        collect(child.value, path: path + child.pathSuffix, depth: depth + 1, into: &out)
      }
    } else {
      out.append((path, value.summary(width: 200)))
    }
  }

  /// The value at `path`, for a field's sparkline.
  static func value(at path: String, in root: ArchivedValue) -> ArchivedValue? {
    if path == "root" { return root }
    var found: ArchivedValue?
    func walk(_ value: ArchivedValue, _ current: String, _ depth: Int) {
      guard found == nil, depth < 64, path.hasPrefix(current) else { return }
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
