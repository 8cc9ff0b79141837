import ArchivedValues
import Dashboard
import DevicePairing
import DeviceRouting
import DeviceSession
import KeyedArchive
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
  /// For a session send of something kept: its archive, or why it is not there.
  private var archive: Result<[UInt8], SessionSendFailure>?
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
    case .decodeRemote(let remote):
      version = remote
    case .replayEntry(let id, _, _, _):
      entry = model.trafficEntry(id)
      self.model = model
    case .sessionSend(let send):
      archive = Self.keptArchive(send.content, in: model)
    case .pass, .clear, .clearAll, .cancelTransfer, .route, .answerInvitation, .peerSend, .peerCommand,
      .remoteWrite,
      .copyToClipboard,
      .loadTheme,
      .wake, .rescan,
      .repaint,
      .quit:
      break  // nothing to capture; the loop does the last six itself
    }
  }

  /// Does it with `operations` (and `pairs` for the pairs' devices), and returns the message
  /// that reports it: the decoding for a decode, else how the effect ended.
  public func perform(
    with operations: MailboxOperations, pairs: any PairOperations = DevicePairOperations()
  ) -> DashboardMessage {
    let serial: UInt64
    switch effect {
    case .decode(_, _, let decoded): serial = decoded
    case .decodeRemote(let remote): serial = remote.serial
    default: return .effectFinished(run(with: operations, pairs: pairs))
    }
    if let isStillWanted, !isStillWanted(serial) { return .decodeSkipped(serial: serial) }
    guard let version else { return .decoded(serial: serial, .undecodable("that version is no longer kept")) }
    return .decoded(serial: serial, DecodedMessage(decoding: version))
  }

  /// Does it with `operations` (and `pairs` for the pairs' devices); returns the effect with,
  /// when it failed, why, and what it said it did.
  public func run(
    with operations: MailboxOperations, pairs: any PairOperations = DevicePairOperations()
  ) -> EffectResult {
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
      case .sessionSend(let send):
        return runSession(send, with: pairs)
      case .route(let send):
        return runRoute(send, with: pairs)
      case .cancelTransfer(let home, let pair, let role, let id):
        do throws(PairOperationError) {
          let name: PairName
          do { name = try PairName(pair) } catch { throw .failed(Self.pairNameProblem(error)) }
          try pairs.cancelTransfer(id, of: DeviceAddress(pair: name, role: DeviceRole(role)), home: home)
        } catch {
          return .failed(effect, error.description)
        }
      case .answerInvitation(let answer):
        return Self.runAnswer(answer, effect: effect)
      case .peerSend(let send):
        return Self.runPeerSend(send, effect: effect)
      case .peerCommand(let command):
        return Self.runPeerCommand(command, effect: effect)
      case .remoteWrite:
        return .failed(effect, "no broker to send it through (the dashboard was started without --broker)")
      case .decode, .decodeRemote, .copyToClipboard, .loadTheme, .wake, .rescan, .repaint, .quit:
        break  // a decode reports its decoding (perform(with:))
      }
      return .done(effect)
    } catch {
      return .failed(effect, error.description)
    }
  }

  // MARK: Pushes and deep links

  /// Sends a push or opens a URL through `pairs`, to a pair's device or a running peer, checked
  /// again as the verbs check it: the route taken is the detail; a device or peer not running,
  /// a refusal or a route whose action failed is a failure.
  private func runRoute(_ send: RouteSend, with pairs: any PairOperations) -> EffectResult {
    let target: PairRouteRequest.Target
    let notRunning: String
    switch send.target {
    case .device(let home, let pair, let role):
      let name: PairName
      do { name = try PairName(pair) } catch { return .failed(effect, Self.pairNameProblem(error)) }
      target = .device(home: home, DeviceAddress(pair: name, role: DeviceRole(role)))
      notRunning =
        "\(send.shownTarget) is not running: only a running device (wormhole-tui device run) takes pushes and deep links; nothing was sent"
    case .peer(let peer):
      guard let client = PeerRouteClient(peer) else {
        return .failed(
          effect, "\(send.shownTarget) has no control socket of a peer of its service; nothing was sent")
      }
      target = .peer(client)
      notRunning =
        "\(send.shownTarget) is not running any more (it ended since the peers were read): only a running peer (wormhole-tui peer run) takes pushes and deep links; nothing was sent"
    }
    let delivery: RouteDelivery
    switch send.delivery {
    case .push(let json):
      do throws(PushPayloadError) {
        delivery = .push(try PushNotification(json: json))
      } catch {
        return .failed(effect, error.description)
      }
    case .deepLink(let url):
      do throws(DeepLinkError) {
        delivery = .deepLink(try DeepLink(url))
      } catch {
        return .failed(effect, error.description)
      }
    }
    do throws(PairOperationError) {
      guard let routed = try pairs.route(PairRouteRequest(target: target, delivery: delivery)) else {
        return .failed(effect, notRunning)
      }
      if let failure = routed.failure {
        return .failed(effect, "route \(routed.description), but its action failed: \(failure)")
      }
      return .done(effect, detail: "route " + routed.description)
    } catch {
      return .failed(effect, error.description)
    }
  }

  // MARK: Session sends

  /// Why a session send has no archive to send.
  private struct SessionSendFailure: Error {
    var reason: String
  }

  /// The archive a session send of something kept sends, captured on the loop; `nil` for a
  /// typed value (encoded when the job runs).
  private static func keptArchive(_ content: SessionSend.Content, in model: ModelState)
    -> Result<[UInt8], SessionSendFailure>?
  {
    switch content {
    case .value: return nil
    case .version(let directory, let identifier, let serial):
      guard let version = model.mailbox(identifier, in: directory)?.version(serial: serial) else {
        return .failure(SessionSendFailure(reason: "that version is no longer kept"))
      }
      guard let bytes = version.bytes else {
        return .failure(
          SessionSendFailure(reason: OperationError.bytesNotKept(size: version.size).description))
      }
      return .success(bytes)
    case .entry(let id):
      guard let entry = model.trafficEntry(id) else {
        return .failure(SessionSendFailure(reason: "that traffic entry is no longer kept"))
      }
      guard let version = model.version(of: entry) else {
        return .failure(SessionSendFailure(reason: OperationError.messageNotKept(entry: id).description))
      }
      guard let bytes = version.bytes else {
        return .failure(
          SessionSendFailure(reason: OperationError.bytesNotKept(size: version.size).description))
      }
      return .success(bytes)
    }
  }

  private func runSession(_ send: SessionSend, with pairs: any PairOperations) -> EffectResult {
    let bytes: [UInt8]
    switch (send.content, archive) {
    case (.value(let value), _):
      do throws(KeyedArchiveEncodingError) {
        bytes = try KeyedArchiveEncoder().encodeBytes(value)
      } catch {
        return .failed(effect, "the value cannot be archived: \(error)")
      }
    case (_, .success(let kept)?): bytes = kept
    case (_, .failure(let failure)?): return .failed(effect, failure.reason)
    case (_, nil): return .failed(effect, "nothing was captured to send")
    }
    let name: PairName
    do { name = try PairName(send.sender.pair) } catch { return .failed(effect, Self.pairNameProblem(error)) }
    let kind: PairSendRequest.Kind
    switch send.transiting {
    case .sessionMessage: kind = .message(replyTimeout: send.replyTimeout)
    case .sessionContext: kind = .context(deliveringIdentical: send.deliversIdentical)
    case .sessionFile: kind = .file
    case .file, .coordinatedFile:
      return .failed(effect, "\(send.transiting) is not a session type")
    }
    let request = PairSendRequest(
      home: send.sender.home, sender: DeviceAddress(pair: name, role: DeviceRole(send.sender.role)),
      applicationGroup: send.sender.applicationGroup, optionalDirectory: send.sender.optionalDirectory,
      identifier: send.identifier, archive: bytes, kind: kind)
    do throws(PairOperationError) {
      let outcome = try pairs.send(request)
      return .done(effect, detail: Self.detail(outcome, receiver: send.sender.receiver.rawValue))
    } catch {
      return .failed(effect, error.description)
    }
  }

  /// What a send did, in words: "delivered to the watch", "queued: transfer 12, …", a reply.
  /// How long an answer to an invitation may take (the peer answers at once).
  static let answerSeconds = 5.0

  /// Sends `answer FROM accept|decline` to the invited peer's control socket.
  static func runAnswer(_ answer: PeerAnswer, effect: DashboardEffect) -> EffectResult {
    let request = PeerControlMessage(text: ["answer", answer.from, answer.word])
    guard
      let reply = PeerControlChannel.exchange(request, path: answer.controlSocketPath, seconds: answerSeconds)
    else {
      return .failed(
        effect, "\(DisplayText.field(answer.peer)) did not answer: it no longer runs, or is busy")
    }
    guard reply.text(0) == "ok" else { return .failed(effect, reply.text(2)) }
    return .done(effect)
  }

  /// Sends `send TO mode DATA` to the sending peer's control socket; its answer is the detail.
  /// `@FILE`: the file's bytes, read now; refused with the limit when it is over it.
  static func runPeerSend(_ send: PeerDataSend, effect: DashboardEffect) -> EffectResult {
    let data: [UInt8]
    switch PeerDataFile.bytes(of: send) {
    case .success(let bytes): data = bytes
    case .failure(let refusal): return .failed(effect, refusal.reason)
    }
    let request = PeerControlMessage([
      Array("send".utf8), Array(send.targets.utf8), Array(send.mode.utf8), data,
    ])
    guard
      let reply = PeerControlChannel.exchange(request, path: send.controlSocketPath, seconds: answerSeconds)
    else {
      return .failed(effect, "\(DisplayText.field(send.peer)) did not answer: it no longer runs, or is busy")
    }
    guard reply.text(0) == "ok" else { return .failed(effect, reply.text(2)) }
    return .done(effect, detail: reply.text(1))
  }

  /// Sends `disconnect` or `cancel ID` to the peer's control socket; its answer is the detail.
  static func runPeerCommand(_ command: PeerCommand, effect: DashboardEffect) -> EffectResult {
    guard
      let reply = PeerControlChannel.exchange(
        PeerControlMessage(text: command.fields), path: command.controlSocketPath, seconds: answerSeconds)
    else {
      return .failed(
        effect, "\(DisplayText.field(command.peer)) did not answer: it no longer runs, or is busy")
    }
    guard reply.text(0) == "ok" else { return .failed(effect, reply.text(2)) }
    return .done(effect, detail: reply.text(1))
  }

  static func detail(_ outcome: PairSendOutcome, receiver: String) -> String {
    let them = "the \(receiver)"
    switch outcome {
    case .message(nil):
      return "delivered to \(them)"
    case .message(let reply?):
      return "delivered to \(them); reply: " + replySummary(reply)
    case .context(.sent(let version), let isStored):
      return isStored
        ? "context version \(version) stored by \(them)"
        : "context version \(version) sent to \(them), not acknowledged yet: it is sent again when both run"
    case .context(.queued(let version), _):
      return "queued: context version \(version), delivered when \(them) runs (only the newest is)"
    case .context(.unchanged, _):
      return "unchanged: identical to the current context, so not delivered (choose deliver identical)"
    case .transfer(let id, let wasReachable, let isStored):
      if isStored { return "transfer \(id) stored by \(them)" }
      return wasReachable
        ? "transfer \(id) sent to \(them), not stored yet: it stays queued until it is"
        : "queued: transfer \(id), delivered when \(them) runs"
    }
  }

  /// A reply's archive in a line, as the message log shows it.
  static func replySummary(_ reply: [UInt8]) -> String {
    guard let inspection = try? KeyedArchiveInspector().inspect(reply) else {
      return "\(reply.count) bytes that are not an archive"
    }
    return inspection.root.summary(width: 200)
  }

  /// The pair store's own words for a name it refuses.
  private static func pairNameProblem(_ error: PairNameError) -> String {
    PairStoreError.invalidName(error).description
  }
}

extension DeviceRole {
  /// The session's role for the dashboard's.
  init(_ role: PairSnapshot.Role) {
    self = role == .phone ? .phone : .watch
  }
}
