import ArchivedValues
import WormholeVocabulary

/// A pass, clear, clear-all or replay on a bridged machine's mailbox (or directory, for a
/// clear-all), for its bridge to apply (journaled there) when it accepts remote writes: what
/// ``DashboardEffect/remoteWrite(_:)`` carries. The executor sends it as a request through the
/// broker and reports the bridge's reply.
public struct RemoteWrite: Sendable, Hashable {
  public enum Operation: String, Sendable, Hashable {
    case pass, clear, replay
    /// Every mailbox of the directory, journaled there as one clear-all.
    case clearAll = "clear-all"
    /// The version record ``RemoteWrite/replayOf`` wrote, replayed by the bridge from its own
    /// history: for a version this dashboard no longer keeps (or whose archive it was not sent).
    case replayRecord = "replay-record"
  }

  public var operation: Operation
  /// The machine, as its bridge names itself.
  public var machine: String
  /// The directory there, its whole path.
  public var directory: FileName
  /// The mailbox; `nil` exactly for a clear-all.
  public var identifier: FileName?
  /// What a pass writes (`nil`: a notification only); the executor archives it.
  public var value: ArchivedValue?
  /// What a replay writes again: a version's archive as the bridge published it.
  public var archive: [UInt8]?
  /// The journal sequence number, on that machine, of the record a replay repeats (the
  /// version's or the traffic entry's), so that its bridge journals a replay of it; `nil` when
  /// the version came with none (the bridge then journals a pass).
  public var replayOf: UInt64?

  public init(
    _ operation: Operation, machine: String, directory: FileName, identifier: FileName?,
    value: ArchivedValue? = nil,
    archive: [UInt8]? = nil, replayOf: UInt64? = nil
  ) {
    self.operation = operation
    self.machine = machine
    self.directory = directory
    self.identifier = identifier
    self.value = value
    self.archive = archive
    self.replayOf = replayOf
  }

  /// The operation in a few words, for messages: `remote clear of "button" on ci-3`,
  /// `remote clear-all of /home/ci/.wormhole on ci-3`, `remote replay of record 12 of button on ci-3`.
  public var description: String {
    let target = identifier?.displayField ?? directory.displayField
    guard operation == .replayRecord else {
      return "remote \(operation.rawValue) of \(target) on \(DisplayText.field(machine))"
    }
    return "remote replay of record \(replayOf ?? 0) of \(target) on \(DisplayText.field(machine))"
  }
}
