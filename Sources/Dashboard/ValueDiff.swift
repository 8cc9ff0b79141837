import ArchivedValues

/// A field-level comparison of two decoded values, made on the values themselves (not on their
/// rendered rows), so that it is whole however large they are; only what it reports is limited.
enum ValueDiff {
  enum Change: Hashable {
    case added(path: String, text: String)
    case removed(path: String, text: String)
    case changed(path: String, old: String, new: String)
  }

  /// What a comparison found: the first `limit` changes, and how many more there were.
  struct Comparison: Hashable {
    var changes: [Change] = []
    /// Changes found past the limit, counted and not reported.
    var omitted = 0
    /// Whether the values are equal.
    var isEmpty: Bool { changes.isEmpty && omitted == 0 }
  }

  /// What changed from `old` to `new`, in the new value's order (removed fields after the fields
  /// of their container that remain). Dictionaries and objects are matched by key, arrays and
  /// sets by position; an added or removed branch is one change, shown by its summary.
  static func changes(
    from old: ArchivedValue, to new: ArchivedValue, limit: Int = ValueTree.rowLimit
  ) -> Comparison {
    var walker = Walker(limit: limit)
    walker.compare(old, new, path: "root", depth: 0)
    return walker.result
  }

  private struct Walker {
    let limit: Int
    var result = Comparison()

    mutating func report(_ change: @autoclosure () -> Change) {
      if result.changes.count < limit { result.changes.append(change()) } else { result.omitted += 1 }
    }

    mutating func compare(_ old: ArchivedValue, _ new: ArchivedValue, path: String, depth: Int) {
      guard old != new else { return }
      guard depth < ValueTree.depthLimit, let oldChildren = ValueTree.children(of: old),
        let newChildren = ValueTree.children(of: new)
      else {
        report(.changed(path: path, old: old.summary(width: 200), new: new.summary(width: 200)))
        return
      }
      let oldKind = kind(of: old)
      let newKind = kind(of: new)
      if oldKind != newKind { report(.changed(path: path, old: oldKind, new: newKind)) }
      var oldBySuffix: [String: ArchivedValue] = [:]
      oldBySuffix.reserveCapacity(oldChildren.count)
      for child in oldChildren where oldBySuffix[child.pathSuffix] == nil {
        oldBySuffix[child.pathSuffix] = child.value
      }
      var matched = Set<String>()
      for child in newChildren {
        let childPath = path + child.pathSuffix
        if let previous = oldBySuffix[child.pathSuffix], !matched.contains(child.pathSuffix) {
          matched.insert(child.pathSuffix)
          compare(previous, child.value, path: childPath, depth: depth + 1)
        } else {
          report(.added(path: childPath, text: child.value.summary(width: 200)))
        }
      }
      for child in oldChildren where !matched.contains(child.pathSuffix) {
        matched.insert(child.pathSuffix)
        report(.removed(path: path + child.pathSuffix, text: child.value.summary(width: 200)))
      }
    }

    /// What sort of container a value is, to report a dictionary that became an array, or an
    /// object whose class changed.
    private func kind(of value: ArchivedValue) -> String {
      switch value {
      case .dictionary: return "dictionary"
      case .array: return "array"
      case .set: return "set"
      case .orderedSet: return "ordered set"
      case .object(let object): return DisplayText.escaped(object.className)
      case .shared(let shared): return kind(of: shared.value)
      case .attributedString: return "attributed string"
      case .countedSet: return "counted set"
      default: return ""
      }
    }
  }
}
