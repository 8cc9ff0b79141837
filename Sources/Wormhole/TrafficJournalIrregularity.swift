/// Something a ``TrafficJournalReader`` found in a journal besides records, said as what
/// happened: lines that are not records, numbering that jumps, records lost to rotation.
///
/// Each is found where it happens (the reader knows which lines it skipped and which rotations it
/// missed), so that a gap in the numbers is never guessed at from the numbers alone.
public enum TrafficJournalIrregularity: Sendable, Hashable, CustomStringConvertible {
  /// Lines of the file at `path` that are not records (not JSON, a field missing or of the wrong
  /// type, longer than any record) were skipped: `count` of them in one read, the first at byte
  /// `offset`.
  case skippedLines(path: String, offset: Int, count: Int)
  /// Numbering jumped forward from `from` to `to` with nothing skipped or lost in between: a
  /// writer numbered its record so (a foreign writer, or a damaged journal). No record is missing.
  case sequenceJump(path: String, from: UInt64, to: UInt64)
  /// The reader fell more than one rotation behind: the records numbered after `after` and before
  /// `before` were in a generation of the journal that was rotated away before it was read.
  case rotatedAway(path: String, after: UInt64, before: UInt64)

  /// A jump forward of more than this many numbers is more than rotation could have lost in any
  /// plausible time (a billion posts); it is reported as a jump even across a missed rotation.
  public static let plausibleLoss: UInt64 = 1_000_000_000

  public var description: String {
    switch self {
    case .skippedLines(let path, let offset, let count):
      let what = count == 1 ? "a line that is not a record" : "\(count) lines that are not records, the first"
      return "the traffic journal \(quoted(path)): skipped \(what) at byte \(offset)"
    case .sequenceJump(let path, let from, let to):
      return
        "the traffic journal \(quoted(path)): numbering jumped from \(from) to \(to) (a writer numbered its record so; no record is missing)"
    case .rotatedAway(let path, let after, let before):
      let missing =
        after + 1 == before - 1 ? "record \(after + 1) was" : "records \(after + 1)–\(before - 1) were"
      return
        "the traffic journal \(quoted(path)): \(missing) rotated away before being read; their traffic is missing (the mailboxes are current)"
    }
  }
}
