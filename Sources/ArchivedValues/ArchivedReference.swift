/// A reference to an object in `$objects` that is shown elsewhere, or not at all.
public struct ArchivedReference: Sendable, Hashable {
  /// What the reference points at.
  public enum Kind: String, Sendable, Hashable {
    /// An object already shown in full earlier, labelled with the same ``id``.
    case shared
    /// An object that encloses this reference: the archive is cyclic here.
    case cycle
    /// A raw archive reference (UID) in a property list that is not a resolvable archive.
    case unresolved
  }

  /// The object's index in `$objects` (the UID's value).
  public var id: UInt64
  public var kind: Kind

  public init(id: UInt64, kind: Kind) {
    self.id = id
    self.kind = kind
  }
}
