import ArchivedValues

/// A catcher as a route names it: its place among the catchers of its kind, its pattern and
/// its label. The router's ``description`` and the one read back from a traffic record are the
/// same text, so that the dashboard and the verbs say a route in the words the device said it.
public protocol NamedCatcher: CustomStringConvertible {
  /// Its place among the catchers of its kind when the routing ran, from 0.
  var index: Int { get }
  /// Its pattern, as given.
  var pattern: String { get }
  /// Where it comes from (a routes file's `FILE:LINE`), when it has a label.
  var label: String? { get }
}

extension NamedCatcher {
  /// `catcher 0 "pattern"`, with ` (label)` when it has one; escaped for a terminal.
  public var description: String {
    var text = patternDescription
    if let label { text += " (\(DisplayText.escaped(label)))" }
    return text
  }

  /// `catcher 0 "pattern"`, without its label; escaped for a terminal.
  public var patternDescription: String { "catcher \(index) \(DisplayText.quoted(pattern))" }
}
