/// The ways the contents pane shows the selected mailbox (`v` cycles).
public enum ContentsView: String, Sendable, Hashable, CaseIterable {
  /// The decoded value as a collapsible tree.
  case tree
  /// The inspector's JSON, indented.
  case json
  /// The archive's bytes.
  case hex
  /// The versions seen, newest first.
  case history
  /// A field-level diff of a version against the one before it, or against a marked one.
  case diff

  public var next: ContentsView { cycled(by: 1) }
}
