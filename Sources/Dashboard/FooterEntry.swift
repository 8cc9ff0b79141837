import TerminalScreen

/// One key the footer offers where the focus and the selection are: its name, its word, and
/// how it is shown.
public struct FooterEntry: Sendable, Hashable {
  /// Which entries stay when the line is too short for all of them: the general ones go first
  /// (from the end), then those of the selection (from the end); help and quit stay.
  public enum Standing: Int, Sendable, Hashable, Comparable {
    /// `?` and `q`: always kept.
    case always
    /// A key that acts on what is selected (clear, replay, a peer's keys, the contents view).
    case selection
    /// A key that does the same wherever the selection is (filter, pass, sort, freeze, open).
    case general

    public static func < (lhs: Standing, rhs: Standing) -> Bool { lhs.rawValue < rhs.rawValue }
  }

  /// The key as help names it (``Keymap/name(of:)``).
  public var key: String
  /// What it does here, in a word or two.
  public var word: String
  /// Whether it writes and writes are refused here (read-only, or a bridge that takes no remote
  /// writes): shown disabled, as help shows it.
  public var isDisabled: Bool
  public var standing: Standing

  public init(key: String, word: String, isDisabled: Bool = false, standing: Standing) {
    self.key = key
    self.word = word
    self.isDisabled = isDisabled
    self.standing = standing
  }

  /// The entries of `entries` that fit in `columns` (each takes its key, a space, its word and
  /// two spaces after it, as the footer draws them), in their order: whole entries are left out,
  /// never cut, the general ones first.
  public static func fitting(_ entries: [FooterEntry], columns: Int) -> [FooterEntry] {
    var kept = entries
    func width(_ entry: FooterEntry) -> Int {
      TerminalWidth.columns(of: entry.key) + TerminalWidth.columns(of: entry.word) + 3
    }
    var total = kept.reduce(0) { $0 + width($1) }
    while total > columns, !kept.isEmpty {
      let dropped = kept.indices.reversed().max { kept[$0].standing < kept[$1].standing } ?? kept.endIndex - 1
      total -= width(kept[dropped])
      kept.remove(at: dropped)
    }
    return kept
  }
}
