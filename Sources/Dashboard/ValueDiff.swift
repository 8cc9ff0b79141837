import ArchivedValues

/// A field-level comparison of two decoded values.
enum ValueDiff {
  enum Change: Hashable {
    case added(path: String, text: String)
    case removed(path: String, text: String)
    case changed(path: String, old: String, new: String)
  }

  /// What changed from `old` to `new`, field by field, in the new value's order (removed fields
  /// where they stood in the old one).
  static func changes(from old: ArchivedValue, to new: ArchivedValue) -> [Change] {
    let before = ValueTree.fields(of: old)
    let after = ValueTree.fields(of: new)
    var oldByPath: [String: String] = [:]
    for field in before { oldByPath[field.path] = field.text }
    let newPaths = Set(after.map(\.path))
    var changes: [Change] = []
    for field in after {
      if let previous = oldByPath[field.path] {
        if previous != field.text {
          changes.append(.changed(path: field.path, old: previous, new: field.text))
        }
      } else {
        changes.append(.added(path: field.path, text: field.text))
      }
    }
    for field in before where !newPaths.contains(field.path) {
      changes.append(.removed(path: field.path, text: field.text))
    }
    return changes
  }
}
