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
///
/// **Slices.** A dashboard ``enqueue(_:)``s what arrives and applies it with
/// ``applyBacklog(limit:at:)`` a slice at a time, so that its loop answers keys between slices
/// while thousands of retained messages load.
///
/// **Reloads.** After the client connects to the broker again, the broker may have lost what it
/// held (restarted without persistence). Between ``FleetMessage/reloadStarted`` and
/// ``FleetMessage/reloadFinished`` the reducer notes what comes again; at the end, a machine of
/// which nothing came is forgotten, and of the others a mailbox that did not come is forgotten,
/// and a presence or bridge info that did not come is unknown (no remote writes), so a machine
/// nobody republishes does not stay online, or accept writes, forever. A reload ends before
/// the marker, as soon as every machine known or heard has been heard again with its bridge
/// info's mailbox count (``FleetMachine/claimedMailboxCount``) and that many mailboxes came
/// again; the marker (the broker went quiet) ends the others: a bridge of an older version
/// states no count, a broker may have dropped some (``FleetReload/waitingFor`` says which).
///
/// **History.** Each mailbox keeps ``historyDepth`` earlier versions, and all of them together
/// at most ``historyByteBudget`` bytes of archives (the local model's 64 MiB by default, a budget
/// of its own): beyond it the oldest versions, across every machine, are evicted first
/// (``historyBytes``, ``evictedVersions``).
public struct FleetState: Sendable {
  /// The largest payload taken from the broker (a mailbox payload holds an archive of at most
  /// 256 KiB, as base64, and its JSON).
  public static let payloadByteLimit = 1 << 20
  /// The largest archive a mailbox payload may carry (the bridge's limit).
  public static let archiveByteLimit = 256 << 10
  /// Serials of remote versions start here, far above any local model's, so that one cache of
  /// decoded versions serves both.
  public static let firstSerial: UInt64 = 1 << 62
  /// The most machines kept: a message of one more is dropped and counted with the reason,
  /// since anyone who can publish on the broker can invent machines.
  public static let machineLimit = 1024
  /// The most UTF-8 bytes kept of a text from the broker that no byte budget counts (a traffic
  /// entry's sender, error, device, peer, transfer; a mailbox's last writer, error, archive
  /// note): a longer one is cut, `…` added.
  public static let textByteLimit = 1024
  /// The most mailboxes kept by default, across the machines (``mailboxLimit``).
  public static let defaultMailboxLimit = 100_000

  /// Earlier versions kept per mailbox (the dashboard's `--history N`).
  public var historyDepth: Int
  /// The bytes all remote history versions together may hold.
  public let historyByteBudget: Int
  /// Bytes held by remote history versions now.
  public private(set) var historyBytes = 0
  /// History versions evicted so far to stay within ``historyByteBudget``.
  public private(set) var evictedVersions = 0
  /// History versions in the order they entered history, oldest first from ``historyOrderStart``;
  /// keys of versions already gone (trimmed by depth, forgotten) are skipped.
  private var historyOrder: [HistoryKey] = []
  private var historyOrderStart = 0
  /// How many keys ``historyOrder`` held from ``historyOrderStart`` after its last compaction:
  /// it is compacted again (keys of versions no longer kept removed) once it holds twice as
  /// many and 1,024 more, so that depth trims and forgotten mailboxes do not grow it for ever.
  private var historyOrderCompacted = 0

  /// The keys ``historyOrder`` holds, spent or not (for tests of its bound).
  var historyOrderCount: Int { historyOrder.count - historyOrderStart }

  /// Where a history version is, for evicting it.
  private struct HistoryKey: Sendable {
    var machine: String
    var mailbox: FleetMailboxKey
    var serial: UInt64
  }
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
  /// The mailboxes kept, across the machines (cleared ones included: they keep their history).
  private var mailboxTotal = 0
  /// Messages enqueued and not applied yet, from ``backlogStart``.
  private var backlog: [FleetMessage] = []
  private var backlogStart = 0
  /// What came again since the reload began, while one is under way.
  private var reloading: HeardAgain?

  /// What a reload has heard of: machines, and of each its presence, its bridge info and its
  /// mailboxes.
  private struct HeardAgain: Sendable {
    var machines: Set<String> = []
    var presences: Set<String> = []
    var infos: Set<String> = []
    var mailboxes: [String: Set<FleetMailboxKey>] = [:]
    /// The mailbox counts the bridge infos heard again state.
    var counts: [String: Int] = [:]
    /// The machines whose stated count has not come again (not heard yet, no count stated,
    /// fewer mailboxes): the reload ends early once none is left.
    var waiting: Set<String> = []

    /// Whether every machine's stated mailboxes came again (and something came at all).
    var isComplete: Bool { waiting.isEmpty && !machines.isEmpty }

    /// Takes `machine` off ``waiting`` once its stated count came, puts it back otherwise.
    mutating func reconsider(_ machine: String) {
      if let count = counts[machine], (mailboxes[machine]?.count ?? 0) >= count {
        waiting.remove(machine)
      } else {
        waiting.insert(machine)
      }
    }

    /// What the reload still waits for, the first machine by name: `nil` when nothing.
    var waitingReason: String? {
      guard let name = waiting.min() else { return nil }
      let machine = "machine \(DisplayText.field(name))"
      guard machines.contains(name) else { return "\(machine), not heard again" }
      guard let count = counts[name] else {
        return "\(machine), whose bridge states no mailbox count (an older bridge, or its info did not come)"
      }
      let came = mailboxes[name]?.count ?? 0
      return "\(machine): \(came) of \(count) mailboxes came again"
    }
  }

  /// The most mailboxes kept, across the machines: a new one beyond is dropped and counted.
  public let mailboxLimit: Int

  public init(
    historyDepth: Int = 64, keepsPayloads: Bool = false, mailboxLimit: Int = FleetState.defaultMailboxLimit,
    historyByteBudget: Int = ModelConfiguration().historyByteBudget
  ) {
    self.historyDepth = max(historyDepth, 0)
    self.historyByteBudget = max(historyByteBudget, 0)
    self.keepsPayloads = keepsPayloads
    self.mailboxLimit = max(mailboxLimit, 0)
  }

  /// Every mailbox of every machine.
  public var mailboxCount: Int {
    machines.values.reduce(0) { total, machine in
      total + machine.directories.values.reduce(0) { $0 + $1.count }
    }
  }

  /// What arrived short of what the bridges say they publish: one sentence per machine whose
  /// bridge info claims more mailboxes than arrived (see ``FleetMachine/shortfall``), by name.
  public var shortfalls: [String] {
    machineNames.compactMap { machines[$0]?.shortfall }
  }

  /// The mailbox `identifier` of `directory` on `machine`.
  public func mailbox(_ identifier: FileName, in directory: FileName, machine: String) -> Mailbox? {
    machines[machine]?.mailbox(identifier, in: directory)
  }

  /// Checks and applies a batch of messages, in the order they arrived, received at `now`
  /// (milliseconds since 1970): ``FleetMessage/init(_:at:)`` then ``apply(_:at:)-([FleetMessage],_)``.
  @discardableResult
  public mutating func apply(_ inputs: [FleetInput], at now: Int64) -> FleetChange {
    apply(inputs.map { FleetMessage($0, at: now) }, at: now)
  }

  /// Applies a batch of checked messages, in the order they arrived, received at `now`. The
  /// checks (parsing JSON, decoding base64) were done already, off the dashboard's loop.
  @discardableResult
  public mutating func apply(_ messages: [FleetMessage], at now: Int64) -> FleetChange {
    var change = FleetChange()
    for message in messages { apply(message, at: now, into: &change) }
    return change
  }

  /// Messages taken from the backlog and applied since the start: what the source that enqueues
  /// them holds its next batches back by (``DashboardRuntime`` posts no more while too many wait).
  public private(set) var appliedMessageCount = 0

  /// Messages waiting in the backlog (``enqueue(_:)``).
  public var backlogCount: Int { backlog.count - backlogStart }

  /// Adds `messages` to the backlog, after those already there; nothing is applied yet.
  public mutating func enqueue(_ messages: [FleetMessage]) {
    if backlogStart > 0 && backlogStart >= backlog.count / 2 {
      backlog.removeFirst(backlogStart)
      backlogStart = 0
    }
    backlog += messages
  }

  /// Applies at most `limit` messages from the front of the backlog, received at `now`.
  @discardableResult
  public mutating func applyBacklog(limit: Int, at now: Int64) -> FleetChange {
    var change = FleetChange()
    let end = min(backlog.count, backlogStart + max(limit, 1))
    while backlogStart < end {
      let message = backlog[backlogStart]
      backlogStart += 1
      appliedMessageCount += 1
      apply(message, at: now, into: &change)
    }
    if backlogStart == backlog.count {
      backlog = []
      backlogStart = 0
    }
    return change
  }

  private mutating func apply(_ message: FleetMessage, at now: Int64, into change: inout FleetChange) {
    if let impostor = Self.machine(of: message), let shown = machines[impostor],
      !shown.name.utf8.elementsEqual(impostor.utf8)
    {
      // Swift's `String` calls canonically equivalent names equal (`é` and `e` + U+0301), but
      // they are two topic levels, two machines to the broker and its ACL: the one shown first
      // keeps the name, the other is refused, so it can neither pass for it nor change it.
      drop(
        "machine \(DisplayText.field(impostor)) (bytes \(Self.hex(impostor))) has the same text as machine "
          + "\(DisplayText.field(shown.name)) (bytes \(Self.hex(shown.name))), shown already: not shown",
        &change)
      return
    }
    if reloading != nil { noteHeard(message) }
    // Once the message is applied: every bridge's stated mailboxes came again.
    defer { if reloading?.isComplete == true { finishReload(&change) } }
    switch message {
    case .ignored: return
    case .dropped(let reason): drop(reason, &change)
    case .reloadStarted: reloading = HeardAgain(waiting: Set(machineNames))
    case .reloadFinished: finishReload(&change)
    case .presence(let machine, .unknown):
      // The retained presence removed: a machine of which nothing else is left is forgotten,
      // so that forged machines removed from the broker free their slots (``machineLimit``).
      guard let known = machines[machine] else { return }
      if known.remoteWrites == nil && known.presentCount == 0 {
        forget(machine, &change)
      } else if known.presence != .unknown {
        machines[machine]?.presence = .unknown
        change.machinesChanged = true
      }
    case .presence(let machine, let presence):
      guard touchMachine(machine, &change) else { return }
      if machines[machine]?.presence != presence {
        machines[machine]?.presence = presence
        change.machinesChanged = true
      }
    case .bridgeInfo(let machine, let policy, let claimed):
      if policy == nil && machines[machine] == nil { return }
      guard touchMachine(machine, &change) else { return }
      if machines[machine]?.remoteWrites != policy || machines[machine]?.claimedMailboxCount != claimed {
        machines[machine]?.remoteWrites = policy
        machines[machine]?.claimedMailboxCount = claimed
        change.machinesChanged = true
      }
    case .traffic(let machine, let entry):
      guard touchMachine(machine, &change) else { return }
      machines[machine]?.recentTraffic.insert(entry)
      change.traffic.append(entry)
    case .trafficBacklog(let machine, let entries):
      guard touchMachine(machine, &change) else { return }
      for entry in entries where machines[machine]?.recentTraffic.insert(entry) == true {
        change.traffic.append(entry)
      }
    case .mailbox(let machine, let directory, let identifier, let payload):
      guard let payload else {
        clearMailbox(machine: machine, directory: directory, identifier: identifier, at: now, &change)
        return
      }
      applyMailbox(payload, machine: machine, directory: directory, identifier: identifier, at: now, &change)
    }
  }

  private mutating func clearMailbox(
    machine: String, directory: FileName, identifier: FileName, at now: Int64, _ change: inout FleetChange
  ) {
    // Cleared (or gone): kept as a cleared mailbox with its history, as a local one is.
    guard let mailbox = machines[machine]?.directories[directory]?[identifier], let current = mailbox.current
    else { return }
    let key = FleetMailboxKey(directory: directory, identifier: identifier)
    var history = mailbox.history
    keepInHistory(current, &history, machine: machine, mailbox: key)
    machines[machine]?.directories[directory]?[identifier] = Mailbox(
      identifier: identifier, current: nil, history: history, versionCount: mailbox.versionCount,
      lastChange: now, error: nil)
    machines[machine]?.payloads[directory]?[identifier] = nil
    change.changedMailboxes[machine, default: []].insert(key)
    evictBeyondBudget(&change)
  }

  /// Adds `version` to the end of `history` (of `mailbox` on `machine`), trimmed to
  /// ``historyDepth``, counting its bytes.
  private mutating func keepInHistory(
    _ version: MailboxVersion, _ history: inout [MailboxVersion], machine: String, mailbox: FleetMailboxKey
  ) {
    history.append(version)
    historyBytes += version.bytes?.count ?? 0
    // Only versions with bytes count against the budget, so only they need a place in the order.
    if version.bytes?.isEmpty == false {
      historyOrder.append(HistoryKey(machine: machine, mailbox: mailbox, serial: version.serial))
    }
    if history.count > historyDepth {
      let excess = history.count - historyDepth
      historyBytes -= history.prefix(excess).reduce(0) { $0 + ($1.bytes?.count ?? 0) }
      history.removeFirst(excess)
    }
  }

  /// Removes from ``historyOrder`` the keys of versions no longer kept (trimmed by depth,
  /// evicted, their mailbox or machine forgotten), once it holds twice as many keys as after
  /// its last compaction and 1,024 more: amortized O(1) a version, and a bound of about three
  /// times the versions kept.
  private mutating func compactHistoryOrderIfDue() {
    guard historyOrderCount > 2 * historyOrderCompacted + 1024 else { return }
    // The mailbox being updated is not written back yet: its history is read from `machines`,
    // so the caller compacts after writing it.
    historyOrder = historyOrder[historyOrderStart...].filter { key in
      let path = key.mailbox
      guard let mailbox = machines[key.machine]?.directories[path.directory]?[path.identifier] else {
        return false
      }
      return mailbox.history.contains { $0.serial == key.serial }
    }
    historyOrderStart = 0
    historyOrderCompacted = historyOrder.count
  }

  /// Evicts the oldest history versions, across every machine, while more than
  /// ``historyByteBudget`` bytes are held.
  private mutating func evictBeyondBudget(_ change: inout FleetChange) {
    while historyBytes > historyByteBudget && historyOrderStart < historyOrder.count {
      let key = historyOrder[historyOrderStart]
      historyOrderStart += 1
      let path = key.mailbox
      guard var mailbox = machines[key.machine]?.directories[path.directory]?[path.identifier],
        let index = mailbox.history.firstIndex(where: { $0.serial == key.serial })
      else { continue }
      var history = mailbox.history
      let evicted = history.remove(at: index)
      historyBytes -= evicted.bytes?.count ?? 0
      evictedVersions += 1
      mailbox = Mailbox(
        identifier: mailbox.identifier, current: mailbox.current, history: history,
        versionCount: mailbox.versionCount, lastChange: mailbox.lastChange, error: mailbox.error)
      machines[key.machine]?.directories[path.directory]?[path.identifier] = mailbox
      change.changedMailboxes[key.machine, default: []].insert(path)
    }
    // Spent keys are dropped once they are half the list, so it does not grow without bound.
    if historyOrderStart > 1024 && historyOrderStart * 2 >= historyOrder.count {
      historyOrder.removeFirst(historyOrderStart)
      historyOrderStart = 0
    }
    compactHistoryOrderIfDue()
  }

  /// Bytes of the history versions of `mailbox`, for forgetting it.
  private static func historyBytes(of mailbox: Mailbox) -> Int {
    mailbox.history.reduce(0) { $0 + ($1.bytes?.count ?? 0) }
  }

  private mutating func applyMailbox(
    _ payload: RemoteMailboxPayload, machine: String, directory: FileName, identifier: FileName,
    at now: Int64,
    _ change: inout FleetChange
  ) {
    guard touchMachine(machine, &change) else { return }
    let previous = machines[machine]?.directories[directory]?[identifier]
    if previous == nil && mailboxTotal >= mailboxLimit {
      drop(
        "more than \(mailboxLimit) mailboxes: a new one of \(DisplayText.field(machine)) is not kept",
        &change)
      return
    }
    if previous == nil { mailboxTotal += 1 }
    if machines[machine]?.directories[directory] == nil {
      machines[machine]?.directories[directory] = [:]
      if let paths = machines[machine]?.directoryPaths {
        let index = paths.firstIndex { $0 > directory } ?? paths.count
        machines[machine]?.directoryPaths.insert(directory, at: index)
      }
      change.structuralMachines.insert(machine)
    }
    if previous == nil { change.structuralMachines.insert(machine) }
    if keepsPayloads { machines[machine]?.payloads[directory, default: [:]][identifier] = payload.text }
    var current = previous?.current
    var history = previous?.history ?? []
    var versionCount = previous?.versionCount ?? 0
    let modified = (payload.modifiedMilliseconds ?? 0) * 1_000_000
    // The same version again (each reconnection of the bridge publishes everything): no new one.
    let isSame =
      current.map {
        $0.bytes == payload.archive && $0.size == payload.size && $0.sender == payload.sender
          && $0.sequence == payload.sequence && $0.modifiedNanoseconds == modified
      } ?? false
    let key = FleetMailboxKey(directory: directory, identifier: identifier)
    if payload.error == nil || current == nil, !isSame, payload.summary != nil || payload.archive != nil {
      if let current { keepInHistory(current, &history, machine: machine, mailbox: key) }
      current = MailboxVersion(
        serial: nextSerial, bytes: payload.archive, size: payload.size, modifiedNanoseconds: modified,
        observedMilliseconds: now, sender: payload.sender, sequence: payload.sequence,
        summary: payload.archive == nil ? (payload.archiveNote ?? payload.summary) : payload.summary)
      nextSerial += 1
      versionCount += 1
    }
    machines[machine]?.directories[directory]?[identifier] = Mailbox(
      identifier: identifier, current: current, history: history, versionCount: versionCount,
      lastChange: isSame ? (previous?.lastChange ?? payload.lastChange ?? now) : (payload.lastChange ?? now),
      error: payload.error)
    change.changedMailboxes[machine, default: []].insert(key)
    evictBeyondBudget(&change)
  }

  /// Makes the machine `name` known; `false` (the message dropped and counted) when it is new
  /// and ``machineLimit`` machines are known already.
  private mutating func touchMachine(_ name: String, _ change: inout FleetChange) -> Bool {
    guard machines[name] == nil else { return true }
    guard machines.count < Self.machineLimit else {
      drop("more than \(Self.machineLimit) machines: \(DisplayText.field(name)) is not shown", &change)
      return false
    }
    machines[name] = FleetMachine(name: name)
    let index = machineNames.firstIndex { $0 > name } ?? machineNames.count
    machineNames.insert(name, at: index)
    change.structuralMachines.insert(name)
    return true
  }

  /// Why a machine whose bridge info did not come again in a reload takes no remote writes.
  public static let unconfirmedReason =
    "its bridge has not published its info again since the broker connection came back"

  /// The machine `message` is about, `nil` for one about none.
  private static func machine(of message: FleetMessage) -> String? {
    switch message {
    case .presence(let machine, _), .bridgeInfo(let machine, _, _), .traffic(let machine, _),
      .trafficBacklog(let machine, _), .mailbox(let machine, _, _, _):
      machine
    case .ignored, .dropped, .reloadStarted, .reloadFinished: nil
    }
  }

  /// `name`'s UTF-8 bytes in lowercase hexadecimal, which tell apart names of the same text.
  private static func hex(_ name: String) -> String {
    let digits = Array("0123456789abcdef".utf8)
    return String(
      decoding: name.utf8.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] }, as: UTF8.self)
  }

  /// Notes, during a reload, what `message` says again.
  private mutating func noteHeard(_ message: FleetMessage) {
    switch message {
    case .presence(let machine, _):
      reloading?.machines.insert(machine)
      reloading?.presences.insert(machine)
    case .bridgeInfo(let machine, _, let claimed):
      reloading?.machines.insert(machine)
      reloading?.infos.insert(machine)
      reloading?.counts[machine] = claimed
    case .traffic(let machine, _), .trafficBacklog(let machine, _):
      reloading?.machines.insert(machine)
    case .mailbox(let machine, let directory, let identifier, _):
      reloading?.machines.insert(machine)
      reloading?.mailboxes[machine, default: []].insert(
        FleetMailboxKey(directory: directory, identifier: identifier))
    case .ignored, .dropped, .reloadStarted, .reloadFinished: return
    }
    if let machine = Self.machine(of: message) { reloading?.reconsider(machine) }
  }

  /// Ends a reload: forgets what did not come again (see the type's documentation).
  private mutating func finishReload(_ change: inout FleetChange) {
    guard let heard = reloading else { return }
    reloading = nil
    var outcome = FleetReload()
    outcome.endedByCounts = heard.isComplete
    outcome.waitingFor = heard.isComplete ? nil : heard.waitingReason
    for name in machineNames {
      guard let machine = machines[name] else { continue }
      guard heard.machines.contains(name) else {
        forget(name, &change)
        outcome.machinesGone += 1
        continue
      }
      outcome.machines += 1
      var unconfirmed = false
      if !heard.presences.contains(name), machine.presence != .unknown {
        machines[name]?.presence = .unknown
        unconfirmed = true
      }
      if !heard.infos.contains(name), machine.remoteWrites != nil {
        machines[name]?.remoteWrites = RemoteWritePolicy(isAllowed: false, reason: Self.unconfirmedReason)
        unconfirmed = true
      }
      if unconfirmed {
        outcome.machinesUnconfirmed += 1
        change.machinesChanged = true
      }
      let sent = heard.mailboxes[name] ?? []
      for (directory, mailboxes) in machine.directories {
        // A cleared mailbox has nothing retained to send again: it keeps its history.
        let stale = mailboxes.filter {
          $0.value.current != nil && !sent.contains(FleetMailboxKey(directory: directory, identifier: $0.key))
        }
        guard !stale.isEmpty else { continue }
        for (identifier, mailbox) in stale {
          historyBytes -= Self.historyBytes(of: mailbox)
          machines[name]?.directories[directory]?[identifier] = nil
          machines[name]?.payloads[directory]?[identifier] = nil
        }
        mailboxTotal -= stale.count
        outcome.mailboxesGone += stale.count
        if machines[name]?.directories[directory]?.isEmpty == true {
          machines[name]?.directories[directory] = nil
          machines[name]?.payloads[directory] = nil
          machines[name]?.directoryPaths.removeAll { $0 == directory }
        }
        change.structuralMachines.insert(name)
      }
    }
    machineNames.removeAll { machines[$0] == nil }
    change.reload = outcome
  }

  /// Forgets the machine `name` with its mailboxes and their history.
  private mutating func forget(_ name: String, _ change: inout FleetChange) {
    guard let machine = machines[name] else { return }
    mailboxTotal -= machine.directories.values.reduce(0) { $0 + $1.count }
    historyBytes -= machine.directories.values.reduce(0) {
      $0 + $1.values.reduce(0) { $0 + Self.historyBytes(of: $1) }
    }
    machines[name] = nil
    machineNames.removeAll { $0 == name }
    change.structuralMachines.insert(name)
  }

  private mutating func drop(_ reason: String, _ change: inout FleetChange) {
    dropped += 1
    change.dropped += 1
    lastDropReason = reason
  }
}
