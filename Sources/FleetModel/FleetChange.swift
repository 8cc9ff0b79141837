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
  /// Set when a reload (``FleetMessage/reloadFinished``) ended in this batch: what it forgot.
  public var reload: FleetReload?

  public init() {}

  /// Whether nothing changed.
  public var isEmpty: Bool {
    !isStructural && !machinesChanged && changedMailboxes.isEmpty && traffic.isEmpty && dropped == 0
      && reload == nil
  }
}

/// What a reload of the fleet (after the client connected to the broker again) forgot: what the
/// broker no longer held and nobody published again.
public struct FleetReload: Sendable, Equatable {
  /// The machines kept.
  public var machines = 0
  /// Machines of which nothing came again: gone.
  public var machinesGone = 0
  /// Mailboxes of the machines kept that came no more: gone.
  public var mailboxesGone = 0
  /// Machines kept whose presence or bridge info came no more: now `presence ?`, and no remote
  /// writes until their bridge publishes again.
  public var machinesUnconfirmed = 0
  /// Whether it ended as soon as every bridge's stated mailboxes came again (its bridge info's
  /// ``FleetMachine/claimedMailboxCount``), rather than when the broker went quiet.
  public var endedByCounts = false
  /// When it ended as the broker went quiet: the first machine whose stated mailboxes it still
  /// waited for, and why (`machine "ci-3", whose bridge states no mailbox count ...`).
  public var waitingFor: String?

  /// A reload that has forgotten nothing yet; the reducer counts into it.
  public init() {}
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
