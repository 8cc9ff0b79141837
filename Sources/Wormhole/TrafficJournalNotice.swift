/// What a ``TrafficJournalFollower`` tells besides records.
public enum TrafficJournalNotice: Sendable, Equatable, CustomStringConvertible {
  /// The journal cannot be read (a link, FIFO, device, directory or a file without permission in
  /// its place); following goes on, and ``usableAgain(path:)`` says when it can be read again.
  case unusable(WormholeError)
  /// The journal at `path` can be read again.
  case usableAgain(path: String)
  /// The journal was truncated, replaced, or its numbering went back: it is read from its start.
  case restarted(path: String)
  /// The directory was removed or moved away; the follower waits for one of that name.
  case directoryRemoved(path: String)
  /// A directory of that name appeared again and is followed.
  case directoryRecreated(path: String)
  /// Following ended: the directory is gone and cannot be waited for.
  case stopped(path: String, reason: String)
  /// What the reader found besides records: lines skipped, numbering that jumped, records
  /// rotated away unread.
  case irregular(TrafficJournalIrregularity)

  public var description: String {
    switch self {
    case .unusable(let error): return error.description
    case .usableAgain(let path): return "the traffic journal \(quoted(path)) can be read again"
    case .restarted(let path):
      return
        "the traffic journal \(quoted(path)) was truncated, replaced or renumbered; reading it from its start"
    case .directoryRemoved(let path):
      return "the wormhole directory \(quoted(path)) was removed or moved; waiting for it to be created again"
    case .directoryRecreated(let path):
      return "the wormhole directory \(quoted(path)) was created again; following it"
    case .stopped(let path, let reason):
      return "stopped following \(quoted(path)): \(reason)"
    case .irregular(let irregularity): return irregularity.description
    }
  }
}
