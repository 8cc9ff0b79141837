import ArchivedValues
import FleetProtocol
import MailboxModel
import PropertyList
import TerminalScreen
import WormholeVocabulary

/// One broker message, checked: what it says, or why it is dropped. Made from a ``FleetInput``
/// by ``init(_:at:)``, pure and off the dashboard's loop (where the client reads the message),
/// so that the loop's reducer (``FleetState/apply(_:at:)-([FleetMessage],_)``) only files it.
///
/// Everything from the broker is hostile. A message is dropped when its topic is not a bridge's
/// (a malformed level, an unknown kind, a name no bridge publishes: see
/// `BridgeTopics.problem(with:)`), its payload is larger than
/// ``FleetState/payloadByteLimit``, a presence is not `online`/`offline`, a mailbox payload or
/// a `BridgeInfo` is not the JSON object the bridge writes, an archive is not base64 or is
/// larger than ``FleetState/archiveByteLimit``, or a traffic entry is retained or malformed.
public enum FleetMessage: Sendable {
  /// `online` or `offline`; `unknown` when the retained presence was removed.
  case presence(machine: String, FleetPresence)
  /// The bridge's `BridgeInfo`, or `nil` when it was removed; with how many mailboxes it says it
  /// publishes (`nil` when it does not say).
  case bridgeInfo(machine: String, RemoteWritePolicy?, mailboxCount: Int?)
  case traffic(machine: String, TrafficEntry)
  /// A bridge's ``TrafficBacklog``: its recent entries, oldest first (see ``FleetState``: those
  /// already seen are not shown again).
  case trafficBacklog(machine: String, [TrafficEntry])
  /// A mailbox's payload, or `nil` when it was cleared (an empty retained message).
  case mailbox(machine: String, directory: FileName, identifier: FileName, RemoteMailboxPayload?)
  /// Not state (another dashboard's requests).
  case ignored
  /// Not a bridge's: counted, never shown.
  case dropped(reason: String)
  /// Not from the broker but from the client: it connected again, and what the broker holds
  /// (its retained messages) follows. Until ``reloadFinished``, the reducer notes what is sent
  /// again (see ``FleetState``).
  case reloadStarted
  /// The broker has handed over what it holds since ``reloadStarted`` (it went quiet): what it
  /// did not send again is forgotten.
  case reloadFinished

  /// `input` checked, received at `now` (milliseconds since 1970).
  public init(_ input: FleetInput, at now: Int64) {
    if let refusal = input.refusal {
      self = .dropped(reason: DisplayText.escaped(refusal))
      return
    }
    guard input.payload.count <= FleetState.payloadByteLimit else {
      self = .dropped(
        reason: "a payload of \(input.payload.count) bytes, above \(FleetState.payloadByteLimit)")
      return
    }
    guard let topic = BridgeTopics.kind(of: input.topic) else {
      self = .dropped(reason: "a topic that is not a bridge's: \(DisplayText.field(input.topic))")
      return
    }
    if let problem = BridgeTopics.problem(with: topic) {
      self = .dropped(reason: DisplayText.escaped(problem))
      return
    }
    switch topic {
    case .requests:
      self = .ignored
    case .presence(let machine):
      // Removed (an empty retained message): unknown, and the machine forgotten if nothing
      // else of it is left (see ``FleetState``).
      guard !input.payload.isEmpty else {
        self = .presence(machine: machine, .unknown)
        return
      }
      guard let word = String(validating: input.payload, as: UTF8.self),
        let presence = FleetPresence(rawValue: word),
        presence != .unknown
      else {
        self = .dropped(reason: "a presence that is neither online nor offline")
        return
      }
      self = .presence(machine: machine, presence)
    case .bridge(let machine):
      // Emptied when the bridge stops cleanly: it takes no remote write then.
      guard !input.payload.isEmpty else {
        self = .bridgeInfo(machine: machine, nil, mailboxCount: nil)
        return
      }
      do throws(FleetProtocolError) {
        let info = try BridgeInfo(payload: input.payload)
        self = .bridgeInfo(
          machine: machine,
          RemoteWritePolicy(isAllowed: info.allowsRemoteWrites, reason: info.reason.map(DisplayText.escaped)),
          mailboxCount: info.mailboxCount)
      } catch {
        self = .dropped(
          reason: "a bridge info that is not the bridge's: \(DisplayText.escaped(String(describing: error)))")
      }
    case .traffic(let machine):
      guard !input.isRetained else {
        self = .dropped(reason: "a retained traffic entry")
        return
      }
      guard let text = String(validating: input.payload, as: UTF8.self),
        let entry = Self.trafficEntry(text, machine: machine, at: now)
      else {
        self = .dropped(reason: "a traffic entry that is not one entry's JSON line")
        return
      }
      self = .traffic(machine: machine, entry)
    case .backlog(let machine):
      self = Self.backlog(input, machine: machine, at: now)
    case .mailbox(let machine, let directory, let identifier):
      guard !input.payload.isEmpty else {
        self = .mailbox(machine: machine, directory: directory, identifier: identifier, nil)
        return
      }
      switch RemoteMailboxPayload.parse(input.payload) {
      case .success(let payload):
        self = .mailbox(machine: machine, directory: directory, identifier: identifier, payload)
      case .failure(let problem):
        self = .dropped(reason: problem.reason)
      }
    }
  }

  /// A traffic entry from its JSON line as `dump --json --follow` writes it, or `nil` when it is
  /// not one (a time, a kind, a directory and an identifier are required; a clear-all's
  /// identifier is empty, as its record's is).
  static func trafficEntry(_ text: String, machine: String, at now: Int64) -> TrafficEntry? {
    FleetJSON(text).flatMap { trafficEntry($0, machine: machine, at: now) }
  }

  /// A traffic entry from the members of its JSON object, or `nil` when it is not one.
  static func trafficEntry(_ fields: FleetJSON, machine: String, at now: Int64) -> TrafficEntry? {
    guard let time = fields.string("time"),
      let milliseconds = TrafficRecord.milliseconds(fromTimestamp: time), let kind = fields.string("kind"),
      !kind.isEmpty, kind.utf8.count <= 64, let directory = fields.name("directory"),
      let identifier = fields.name("identifier")
        ?? (kind == TrafficEntryKind.clearedAll.rawValue && fields.string("identifier") == ""
          ? FileName("") : nil)
    else { return nil }
    var details = TrafficDetails(
      device: fields.text("device"), peer: fields.text("peer"),
      delivery: fields.text("delivery").map(TrafficDelivery.init(rawValue:)),
      transfer: fields.text("transfer"))
    details.machine = machine
    return TrafficEntry(
      id: 0, milliseconds: milliseconds, kind: TrafficEntryKind(rawValue: kind), directory: directory,
      identifier: identifier, transiting: fields.text("transiting"),
      size: Int(clamping: max(fields.integer("bytes") ?? 0, 0)), sender: fields.text("sender"),
      processIdentifier: fields.integer("pid").flatMap { Int32(exactly: $0) },
      sequence: fields.integer("seq").flatMap { UInt64(exactly: $0) }, error: fields.text("error"),
      arrivalMilliseconds: now, details: details)
  }
}
