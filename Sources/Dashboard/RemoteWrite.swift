import ArchivedValues
import WormholeVocabulary

/// A pass, clear or replay on a bridged machine's mailbox, for its bridge to apply (journaled
/// there) when it accepts remote writes: what ``DashboardEffect/remoteWrite(_:)`` carries. The
/// executor sends it as a request through the broker and reports the bridge's reply.
public struct RemoteWrite: Sendable, Hashable {
  public enum Operation: String, Sendable, Hashable {
    case pass, clear, replay
  }

  public var operation: Operation
  /// The machine, as its bridge names itself.
  public var machine: String
  /// The directory there, its whole path.
  public var directory: FileName
  public var identifier: FileName
  /// What a pass writes (`nil`: a notification only); the executor archives it.
  public var value: ArchivedValue?
  /// What a replay writes again: a version's archive as the bridge published it.
  public var archive: [UInt8]?

  public init(
    _ operation: Operation, machine: String, directory: FileName, identifier: FileName,
    value: ArchivedValue? = nil,
    archive: [UInt8]? = nil
  ) {
    self.operation = operation
    self.machine = machine
    self.directory = directory
    self.identifier = identifier
    self.value = value
    self.archive = archive
  }

  /// The operation in a few words, for messages: `remote clear of "button" on ci-3`.
  public var description: String {
    "remote \(operation.rawValue) of \(identifier.displayField) on \(DisplayText.field(machine))"
  }
}
