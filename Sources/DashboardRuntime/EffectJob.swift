import Dashboard
import MailboxModel
import MailboxWatcher
import WormholeVocabulary

/// One piece of work the loop hands to a ``DashboardEffectExecutor``: an effect, with what it
/// needs from the state captured on the loop (the version or traffic entry to replay), so that
/// it runs on another thread without touching the state.
///
/// This file is the one place that knows how each such effect runs.
public struct EffectJob: Sendable {
  /// What the reducer asked for.
  public let effect: DashboardEffect
  /// Whether it writes to mailboxes or the journal: refused when the dashboard is read-only.
  public let writes: Bool
  /// What it is about, for a refusal or a failure: `pass to greeting`.
  public let summary: String
  private var version: MailboxVersion?
  private var entry: TrafficEntry?
  private var model: ModelState?

  /// The job for `effect`, capturing what it needs from `model` now.
  public init(effect: DashboardEffect, model: ModelState) {
    self.effect = effect
    switch effect {
    case .pass(_, let identifier, _, _):
      writes = true
      summary = "pass to \(identifier.displayField)"
    case .clear(_, let identifier):
      writes = true
      summary = "clear \(identifier.displayField)"
    case .clearAll(let directory):
      writes = true
      summary = "clear every mailbox of \(directory.displayField)"
    case .replayVersion(let directory, let identifier, let serial, _, _, _):
      writes = true
      summary = "replay of \(identifier.displayField)"
      version = model.mailbox(identifier, in: directory)?.version(serial: serial)
    case .replayEntry(let id, _, _, _):
      writes = true
      summary = "replay of entry \(id)"
      entry = model.trafficEntry(id)
      self.model = model
    case .copyToClipboard, .loadTheme, .wake, .rescan, .quit:
      writes = false
      summary = "nothing to run"  // the loop does these itself
    }
  }

  /// Does it with `operations`; returns what was done and, when it failed, why.
  public func run(with operations: MailboxOperations) -> (description: String, error: String?) {
    do throws(OperationError) {
      switch effect {
      case .pass(let directory, let identifier, let value, let transiting):
        let type = TransitingType(rawValue: transiting) ?? .file
        try operations.pass(value, identifier: identifier, directory: directory, transitingType: type)
        return ("passed \(identifier.displayField) (\(transiting))", nil)
      case .clear(let directory, let identifier):
        try operations.clear(identifier: identifier, directory: directory)
        return ("cleared \(identifier.displayField)", nil)
      case .clearAll(let directory):
        try operations.clearAll(directory: directory)
        return ("cleared every mailbox of \(directory.displayField)", nil)
      case .replayVersion(_, _, _, let toDirectory, let toIdentifier, let transiting):
        guard let version else { return (summary, "that version is no longer kept") }
        try operations.replay(
          version, identifier: toIdentifier, directory: toDirectory,
          transitingType: TransitingType(rawValue: transiting) ?? .file)
        return ("replayed to \(toIdentifier.displayField)", nil)
      case .replayEntry(let id, let toDirectory, let toIdentifier, let transiting):
        guard let entry, let model else { return (summary, "that entry is no longer kept") }
        try operations.replay(
          entry, in: model, identifier: toIdentifier, directory: toDirectory,
          transitingType: TransitingType(rawValue: transiting) ?? .file)
        return ("replayed entry \(id) to \(toIdentifier.displayField)", nil)
      case .copyToClipboard, .loadTheme, .wake, .rescan, .quit:
        return (summary, nil)
      }
    } catch {
      return (summary, error.description)
    }
  }
}
