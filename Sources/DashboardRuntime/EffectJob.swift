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
  public var writes: Bool { effect.writes }
  private var version: MailboxVersion?
  private var entry: TrafficEntry?
  private var model: ModelState?
  /// For a decode: whether its version is still wanted when its turn comes; one that is not is
  /// skipped (``Dashboard/DashboardMessage/decodeSkipped(serial:)``), so that moving quickly
  /// over large mailboxes does not leave a queue of decodes nobody will look at.
  public var isStillWanted: (@Sendable (UInt64) -> Bool)?

  /// The job for `effect`, capturing what it needs from `model` now.
  public init(effect: DashboardEffect, model: ModelState) {
    self.effect = effect
    switch effect {
    case .replayVersion(let directory, let identifier, let serial, _, _, _),
      .decode(let directory, let identifier, let serial):
      version = model.mailbox(identifier, in: directory)?.version(serial: serial)
    case .replayEntry(let id, _, _, _):
      entry = model.trafficEntry(id)
      self.model = model
    case .pass, .clear, .clearAll, .cancelTransfer, .copyToClipboard, .loadTheme, .wake, .rescan, .repaint,
      .quit:
      break  // nothing to capture; the loop does the last six itself
    }
  }

  /// Does it with `operations`, and returns the message that reports it: the decoding for a
  /// decode, else how the effect ended.
  public func perform(with operations: MailboxOperations) -> DashboardMessage {
    guard case .decode(_, _, let serial) = effect else { return .effectFinished(run(with: operations)) }
    if let isStillWanted, !isStillWanted(serial) { return .decodeSkipped(serial: serial) }
    guard let version else { return .decoded(serial: serial, .undecodable("that version is no longer kept")) }
    return .decoded(serial: serial, DecodedMessage(decoding: version))
  }

  /// Does it with `operations`; returns the effect with, when it failed, why.
  public func run(with operations: MailboxOperations) -> EffectResult {
    do throws(OperationError) {
      switch effect {
      case .pass(let directory, let identifier, let value, let transiting):
        try operations.pass(value, identifier: identifier, directory: directory, transitingType: transiting)
      case .clear(let directory, let identifier):
        try operations.clear(identifier: identifier, directory: directory)
      case .clearAll(let directory):
        try operations.clearAll(directory: directory)
      case .replayVersion(_, _, _, let toDirectory, let toIdentifier, let transiting):
        guard let version else { return .failed(effect, "that version is no longer kept") }
        try operations.replay(
          version, identifier: toIdentifier, directory: toDirectory, transitingType: transiting)
      case .replayEntry(_, let toDirectory, let toIdentifier, let transiting):
        guard let entry, let model else { return .failed(effect, "that traffic entry is no longer kept") }
        try operations.replay(
          entry, in: model, identifier: toIdentifier, directory: toDirectory, transitingType: transiting)
      case .cancelTransfer(let home, let pair, let role, let id):
        if let failure = PairsSource.cancelTransfer(id, pair: pair, role: role, home: home) {
          return .failed(effect, failure)
        }
      case .decode, .copyToClipboard, .loadTheme, .wake, .rescan, .repaint, .quit:
        break  // a decode reports its decoding (perform(with:))
      }
      return .done(effect)
    } catch {
      return .failed(effect, error.description)
    }
  }
}
