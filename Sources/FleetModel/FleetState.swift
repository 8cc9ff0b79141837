import ArchivedValues
import MailboxModel
import PropertyList
import TerminalScreen
import WormholeVocabulary

/// The fleet: every bridged machine as the broker's messages describe it. A pure reducer:
/// ``apply(_:at:)`` takes a batch of messages (as many as arrived since the last one) and
/// returns what changed; it does no I/O and decodes no archive (the bytes are kept for the
/// dashboard's decode effect, as for a local mailbox).
///
/// Everything from the broker is hostile. A message is dropped and counted (``dropped``,
/// ``lastDropReason``), never shown, when its topic is not a bridge's (a malformed level, an
/// unknown kind), its payload is larger than ``payloadByteLimit``, a presence is not
/// `online`/`offline`, a mailbox payload or a `BridgeInfo` is not the JSON object the bridge
/// writes, an archive is not base64 or is larger than ``archiveByteLimit``, or a traffic entry
/// is retained or malformed.
public struct FleetState: Sendable {
  /// The largest payload taken from the broker (a mailbox payload holds an archive of at most
  /// 256 KiB, as base64, and its JSON).
  public static let payloadByteLimit = 1 << 20
  /// The largest archive a mailbox payload may carry (the bridge's limit).
  public static let archiveByteLimit = 256 << 10
  /// Serials of remote versions start here, far above any local model's, so that one cache of
  /// decoded versions serves both.
  public static let firstSerial: UInt64 = 1 << 62

  /// Earlier versions kept per mailbox (the dashboard's `--history N`).
  public var historyDepth: Int
  /// Whether each mailbox's payload is kept as published (`dump --broker --json` prints them).
  public var keepsPayloads: Bool
  /// The machines, by name.
  public private(set) var machines: [String: FleetMachine] = [:]
  /// The machines' names, sorted.
  public private(set) var machineNames: [String] = []
  /// Messages dropped since the start.
  public private(set) var dropped = 0
  /// Why the last one was.
  public private(set) var lastDropReason: String?
  private var nextSerial = FleetState.firstSerial

  public init(historyDepth: Int = 64, keepsPayloads: Bool = false) {
    self.historyDepth = max(historyDepth, 0)
    self.keepsPayloads = keepsPayloads
  }

  /// Every mailbox of every machine.
  public var mailboxCount: Int {
    machines.values.reduce(0) { total, machine in total + machine.directories.values.reduce(0) { $0 + $1.count } }
  }

  /// The mailbox `identifier` of `directory` on `machine`.
  public func mailbox(_ identifier: FileName, in directory: FileName, machine: String) -> Mailbox? {
    machines[machine]?.mailbox(identifier, in: directory)
  }

  /// Applies a batch of messages, in the order they arrived, received at `now` (milliseconds
  /// since 1970).
  @discardableResult
  public mutating func apply(_ inputs: [FleetInput], at now: Int64) -> FleetChange {
    var change = FleetChange()
    for input in inputs { apply(input, at: now, into: &change) }
    return change
  }

  private mutating func apply(_ input: FleetInput, at now: Int64, into change: inout FleetChange) {
    if let refusal = input.refusal { return drop(DisplayText.escaped(refusal), &change) }
    guard input.payload.count <= Self.payloadByteLimit else {
      return drop("a payload of \(input.payload.count) bytes, above \(Self.payloadByteLimit)", &change)
    }
    guard let topic = FleetTopic(input.topic) else {
      return drop("a topic that is not a bridge's: \(DisplayText.field(input.topic))", &change)
    }
    switch topic {
    case .requests:
      return  // another dashboard's requests to that bridge: not state
    case .presence(let machine):
      guard !input.payload.isEmpty else { return }
      guard let word = String(validating: input.payload, as: UTF8.self), let presence = FleetPresence(rawValue: word),
        presence != .unknown
      else { return drop("a presence that is neither online nor offline", &change) }
      touchMachine(machine, &change)
      if machines[machine]?.presence != presence {
        machines[machine]?.presence = presence
        change.machinesChanged = true
      }
    case .bridgeInfo(let machine):
      guard !input.payload.isEmpty else {
        guard machines[machine]?.remoteWrites != nil else { return }
        machines[machine]?.remoteWrites = nil
        change.machinesChanged = true
        return
      }
      guard let text = String(validating: input.payload, as: UTF8.self), let info = FleetJSON(text),
        let allowed = info.boolean("remote_writes")
      else { return drop("a bridge description that is not {\"version\",\"remote_writes\",\"reason\"}", &change) }
      touchMachine(machine, &change)
      let policy = RemoteWritePolicy(isAllowed: allowed, reason: info.string("reason"))
      if machines[machine]?.remoteWrites != policy {
        machines[machine]?.remoteWrites = policy
        change.machinesChanged = true
      }
    case .traffic(let machine):
      guard !input.isRetained else { return drop("a retained traffic entry", &change) }
      guard let text = String(validating: input.payload, as: UTF8.self),
        let entry = Self.trafficEntry(text, machine: machine, at: now)
      else { return drop("a traffic entry that is not one entry's JSON line", &change) }
      touchMachine(machine, &change)
      change.traffic.append(entry)
    case .mailbox(let machine, let directory, let identifier):
      applyMailbox(input.payload, machine: machine, directory: directory, identifier: identifier, at: now, &change)
    }
  }

  private mutating func applyMailbox(
    _ payload: [UInt8], machine: String, directory: FileName, identifier: FileName, at now: Int64,
    _ change: inout FleetChange
  ) {
    let key = FleetMailboxKey(directory: directory, identifier: identifier)
    guard !payload.isEmpty else {
      // Cleared (or gone): kept as a cleared mailbox with its history, as a local one is.
      guard var mailbox = machines[machine]?.directories[directory]?[identifier], let current = mailbox.current
      else { return }
      var history = mailbox.history + [current]
      if history.count > historyDepth { history.removeFirst(history.count - historyDepth) }
      mailbox = Mailbox(
        identifier: identifier, current: nil, history: history, versionCount: mailbox.versionCount,
        lastChange: now, error: nil)
      machines[machine]?.directories[directory]?[identifier] = mailbox
      machines[machine]?.payloads[directory]?[identifier] = nil
      change.changedMailboxes[machine, default: []].insert(key)
      return
    }
    guard let text = String(validating: payload, as: UTF8.self), let top = FleetJSON(text),
      let fields = top.object("mailbox")
    else { return drop("a mailbox payload that is not the bridge's JSON object", &change) }
    var archive: [UInt8]?
    if let base64 = top.string("archive_base64") {
      guard let bytes = Base64.decoded(base64) else { return drop("an archive that is not base64", &change) }
      guard bytes.count <= Self.archiveByteLimit else {
        return drop("an archive of \(bytes.count) bytes, above \(Self.archiveByteLimit)", &change)
      }
      archive = bytes
    }
    touchMachine(machine, &change)
    if machines[machine]?.directories[directory] == nil {
      machines[machine]?.directories[directory] = [:]
      if let paths = machines[machine]?.directoryPaths {
        let index = paths.firstIndex { $0 > directory } ?? paths.count
        machines[machine]?.directoryPaths.insert(directory, at: index)
      }
      change.isStructural = true
    }
    let previous = machines[machine]?.directories[directory]?[identifier]
    if previous == nil { change.isStructural = true }
    if keepsPayloads { machines[machine]?.payloads[directory, default: [:]][identifier] = text }
    let error = fields.string("error").map(DisplayText.escaped)
    let size = Int(clamping: fields.integer("bytes") ?? Int64(archive?.count ?? 0))
    let modified = fields.string("modified").flatMap(TrafficRecord.milliseconds(fromTimestamp:))
    let lastChange = fields.string("last_change").flatMap(TrafficRecord.milliseconds(fromTimestamp:)) ?? now
    let summary = fields.string("summary").map {
      TerminalWidth.truncated(DisplayText.escaped($0), toColumns: MailboxVersion.summaryColumns)
    }
    let sender = fields.string("last_writer")
    let sequence = fields.integer("seq").flatMap { UInt64(exactly: $0) }
    var current = previous?.current
    var history = previous?.history ?? []
    var versionCount = previous?.versionCount ?? 0
    // The same version again (each reconnection of the bridge publishes everything): no new one.
    let isSame =
      current.map {
        $0.bytes == archive && $0.size == size && $0.sender == sender && $0.sequence == sequence
          && $0.modifiedNanoseconds == (modified ?? 0) * 1_000_000
      } ?? false
    if error == nil || current == nil, !isSame, summary != nil || archive != nil {
      if let current { history.append(current) }
      if history.count > historyDepth { history.removeFirst(history.count - historyDepth) }
      current = MailboxVersion(
        serial: nextSerial, bytes: archive, size: size, modifiedNanoseconds: (modified ?? 0) * 1_000_000,
        observedMilliseconds: now, sender: sender, sequence: sequence,
        summary: archive == nil ? (top.string("archive_note").map(DisplayText.escaped) ?? summary) : summary)
      nextSerial += 1
      versionCount += 1
    }
    let mailbox = Mailbox(
      identifier: identifier, current: current, history: history, versionCount: versionCount,
      lastChange: isSame ? (previous?.lastChange ?? lastChange) : lastChange, error: error)
    machines[machine]?.directories[directory]?[identifier] = mailbox
    change.changedMailboxes[machine, default: []].insert(key)
  }

  private mutating func touchMachine(_ name: String, _ change: inout FleetChange) {
    guard machines[name] == nil else { return }
    machines[name] = FleetMachine(name: name)
    let index = machineNames.firstIndex { $0 > name } ?? machineNames.count
    machineNames.insert(name, at: index)
    change.isStructural = true
  }

  private mutating func drop(_ reason: String, _ change: inout FleetChange) {
    dropped += 1
    change.dropped += 1
    lastDropReason = reason
  }

  /// A traffic entry from its JSON line as `dump --json --follow` writes it, or `nil` when it is
  /// not one (a time, a kind, a directory and an identifier are required).
  static func trafficEntry(_ text: String, machine: String, at now: Int64) -> TrafficEntry? {
    guard let fields = FleetJSON(text), let time = fields.string("time"),
      let milliseconds = TrafficRecord.milliseconds(fromTimestamp: time), let kind = fields.string("kind"),
      !kind.isEmpty, kind.utf8.count <= 64, let directory = fields.name("directory"),
      let identifier = fields.name("identifier")
    else { return nil }
    var details = TrafficDetails(
      device: fields.string("device"), peer: fields.string("peer"),
      delivery: fields.string("delivery").map(TrafficDelivery.init(rawValue:)), transfer: fields.string("transfer"))
    details.machine = machine
    return TrafficEntry(
      id: 0, milliseconds: milliseconds, kind: TrafficEntryKind(rawValue: kind), directory: directory,
      identifier: identifier, transiting: fields.string("transiting"),
      size: Int(clamping: max(fields.integer("bytes") ?? 0, 0)), sender: fields.string("sender"),
      processIdentifier: fields.integer("pid").flatMap { Int32(exactly: $0) },
      sequence: fields.integer("seq").flatMap { UInt64(exactly: $0) }, error: fields.string("error"),
      arrivalMilliseconds: now, details: details)
  }
}
