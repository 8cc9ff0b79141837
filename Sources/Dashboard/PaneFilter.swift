/// A `/` filter on a pane: a regular expression, or its inverse when the text starts with `!`.
public struct PaneFilter: Sendable {
  /// What the operator typed.
  public private(set) var text: String
  /// Why the expression does not compile, when it does not; the filter then matches everything.
  public private(set) var error: String?
  private let inverted: Bool
  private let expression: CompiledExpression?

  public init(_ text: String) {
    self.text = text
    inverted = text.hasPrefix("!")
    let pattern = inverted ? String(text.dropFirst()) : text
    do {
      expression = pattern.isEmpty ? nil : CompiledExpression(try Regex(pattern))
      error = nil
    } catch {
      expression = nil
      self.error = "not a regular expression: \(error)"
    }
  }

  /// Whether the filter lets nothing through its own way (empty, or only `!`).
  public var isEmpty: Bool { expression == nil && error == nil }

  /// Whether `candidate` passes the filter.
  public func matches(_ candidate: String) -> Bool {
    guard let expression else { return true }
    let found = (try? expression.regex.firstMatch(in: candidate)) != nil
    return found != inverted
  }
}

/// A compiled regular expression. `Regex` is not `Sendable`; this one is made once, never
/// changed, and used only by the loop that owns the dashboard's state.
private final class CompiledExpression: @unchecked Sendable {
  let regex: Regex<AnyRegexOutput>
  init(_ regex: Regex<AnyRegexOutput>) { self.regex = regex }
}
