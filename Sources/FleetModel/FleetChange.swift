import MailboxModel
import WormholeVocabulary

/// What one batch of broker messages changed, for the views to follow without rebuilding
/// everything.
public struct FleetChange: Sendable {
  /// A machine, directory or mailbox appeared (the tree's rows change).
  public var isStructural: Bool { !structuralMachines.isEmpty }
  /// The machines that appeared or gained a directory or a mailbox.
  public var structuralMachines: Set<String> = []
  /// A machine's presence or remote-write policy changed.
  public var machinesChanged = false
  /// Mailboxes whose payload changed, by machine.
  public var changedMailboxes: [String: Set<FleetMailboxKey>] = [:]
  /// Traffic entries that arrived, in order (ids not assigned yet: the stream assigns them).
  public var traffic: [TrafficEntry] = []
  /// Messages dropped in this batch.
  public var dropped = 0

  public init() {}

  /// Whether nothing changed.
  public var isEmpty: Bool {
    !isStructural && !machinesChanged && changedMailboxes.isEmpty && traffic.isEmpty && dropped == 0
  }
}

/// A mailbox of a machine: its directory and identifier.
public struct FleetMailboxKey: Sendable, Hashable {
  public var directory: FileName
  public var identifier: FileName

  public init(directory: FileName, identifier: FileName) {
    self.directory = directory
    self.identifier = identifier
  }
}
