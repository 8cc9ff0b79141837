/// An archived attributed string: its text and the attributes of each run.
public struct ArchivedAttributedString: Sendable, Hashable {
  /// The string without its attributes.
  public var text: String
  /// Runs in order; locations and lengths count UTF-16 code units, as Foundation does.
  public var runs: [ArchivedAttributeRun]

  public init(text: String, runs: [ArchivedAttributeRun]) {
    self.text = text
    self.runs = runs
  }
}
