import WormholeVocabulary

/// What the model keeps, and how much of it.
public struct ModelConfiguration: Sendable, Hashable {
  /// Earlier versions kept per identifier (the current one is not counted).
  public var historyDepth = 64
  /// The bytes all history versions together may hold; the oldest versions, across every
  /// mailbox, are evicted first when it is exceeded.
  public var historyByteBudget = 64 << 20
  /// Traffic entries kept; the oldest are dropped first.
  public var trafficCapacity = 10_000
  /// How long a file change and a journal record may be apart and still be one post.
  public var matchWindowMilliseconds: Int64 = 2_000
  /// How long a file change and a journal record that carry a transfer identifier wait for each
  /// other: they pair by that identifier, however late the other comes within this time.
  public var transferMatchWindowMilliseconds: Int64 = 60_000
  /// The largest mailbox whose bytes the watcher keeps (its `maximumStoredBytes`): views say it
  /// when they cannot show a larger one.
  public var storedByteLimit = 1 << 20
  /// How far a journal record's time may be from when it arrived before it is doubted
  /// (``TrafficEntry/hasDoubtfulTime``): ahead of arrival for any record, behind it for records
  /// read as they were written.
  public var clockToleranceMilliseconds: Int64 = 300_000

  public init() {}
}

/// The whole model: wormhole directories and their mailboxes, with history and the merged
/// traffic stream. A value: copying it (a snapshot) is cheap, and changes to the copy never show
/// in the original.
///
/// Change it only through ``apply(_:at:)``, the reducer.
public struct ModelState: Sendable {
  public var configuration: ModelConfiguration
  /// Wormhole directories by path, compared by their exact bytes.
  public internal(set) var directories: [FileName: DirectoryState] = [:]
  /// The merged traffic stream, oldest first, at most ``ModelConfiguration/trafficCapacity``.
  public internal(set) var traffic: [TrafficEntry] = []
  /// Things the operator should know that belong to no mailbox: the watch limit reached, a root
  /// that cannot be read. Oldest first, at most 100.
  public internal(set) var notices: [String] = []
  /// Bytes held by history versions now.
  public internal(set) var historyBytes = 0
  /// The identifier the next traffic entry gets; entries with smaller ones already exist.
  public internal(set) var nextTrafficIdentifier: UInt64 = 1
  /// How many traffic entries were dropped from the front of ``traffic`` to respect its capacity.
  public internal(set) var droppedTrafficCount = 0

  var nextVersionSerial: UInt64 = 1
  /// Notices ever added (the array keeps the newest 100), to report the new ones of a step.
  var noticesAdded = 0
  /// Versions in history now, across every mailbox.
  var historyCount = 0
  /// History versions in the order they entered history, for evicting the oldest first; keys
  /// before `historyOrderStart` are spent, and keys of versions already gone are skipped.
  var historyOrder: [HistoryKey] = []
  var historyOrderStart = 0
  var pendingChanges = PendingQueue<PendingChange>()
  var pendingRecords = PendingQueue<PendingRecord>()

  /// An empty model. It decodes nothing: versions arrive summarized by the watcher
  /// (``MailboxVersion/summary``), and whoever shows one in full decodes it off the loop.
  public init(configuration: ModelConfiguration = ModelConfiguration()) {
    self.configuration = configuration
  }

  /// The directories sorted by path.
  public var sortedDirectories: [DirectoryState] { directories.values.sorted { $0.path < $1.path } }

  /// The mailbox for `identifier` in `directory`, present or cleared.
  public func mailbox(_ identifier: FileName, in directory: FileName) -> Mailbox? {
    directories[directory]?.mailboxes[identifier]
  }

  /// The traffic entry with the model identifier `identifier`, if it is still retained.
  public func trafficEntry(_ identifier: UInt64) -> TrafficEntry? {
    guard let index = trafficIndex(of: identifier) else { return nil }
    return traffic[index]
  }

  /// The version a traffic entry recorded, when the model saw that version and still holds it.
  public func version(of entry: TrafficEntry) -> MailboxVersion? {
    guard let serial = entry.versionSerial, let mailbox = mailbox(entry.identifier, in: entry.directory)
    else {
      return nil
    }
    return mailbox.version(serial: serial)
  }

  /// Whether anything waits for a journal record or a file event to be paired with, and when the
  /// earliest wait ends (milliseconds). Send ``ModelEvent/tick`` then.
  public var nextDeadline: Int64? {
    switch (pendingChanges.nextDeadline, pendingRecords.nextDeadline) {
    case (let a?, let b?): return min(a, b)
    case (let a?, nil): return a
    case (nil, let b?): return b
    case (nil, nil): return nil
    }
  }

  func trafficIndex(of identifier: UInt64) -> Int? {
    // Entries are appended with increasing identifiers, though not always at the end: search back.
    var index = traffic.count - 1
    while index >= 0 {
      if traffic[index].id == identifier { return index }
      index -= 1
    }
    return nil
  }
}

/// One wormhole directory.
public struct DirectoryState: Sendable {
  public var path: FileName
  /// Mailboxes by identifier (exact bytes), including cleared ones (their history stays).
  public internal(set) var mailboxes: [FileName: Mailbox] = [:]
  /// Whether the directory is polled because the inotify watch limit was reached.
  public internal(set) var isPolled = false
  /// Why the directory or its journal could not be read, when it could not.
  public internal(set) var error: String?
  /// The sequence number of the last journal record received, to notice gaps.
  public internal(set) var lastJournalSequence: UInt64?

  /// The number of mailboxes on disk that could not be read (``Mailbox/error`` says why); kept as
  /// they change, not counted.
  public internal(set) var unreadableCount = 0

  public init(path: FileName) { self.path = path }

  /// Mailboxes sorted by identifier.
  public var sortedMailboxes: [Mailbox] { mailboxes.values.sorted { $0.identifier < $1.identifier } }

  /// The number of mailboxes holding a message that can be read; unreadable ones are counted in
  /// ``unreadableCount`` instead.
  public var presentCount: Int { mailboxes.values.reduce(0) { $0 + ($1.countsAsPresent ? 1 : 0) } }
}

/// One mailbox (`<identifier>.archive`) and what the model remembers of it.
///
/// A value, copied on write: its fields live in one box, so a directory's table holds a reference
/// per mailbox (8 bytes, where the fields take 120) and a table of 100,000 mailboxes, whose
/// buckets outnumber its mailboxes up to two and a half times, does not pay the fields for the
/// empty buckets; copying the table (the reducer changing one mailbox while a view holds the
/// last snapshot) retains one box per mailbox instead of each of its fields.
public struct Mailbox: Sendable {
  private var storage: Storage

  /// The fields. Changed only through ``unique()``, which copies them first when another
  /// `Mailbox` shares them: a value copied to another thread is never written again.
  private final class Storage: @unchecked Sendable {
    var identifier: FileName
    var current: MailboxVersion?
    var history: [MailboxVersion] = []
    var versionCount = 0
    var lastChange: Int64 = 0
    var error: String?

    init(identifier: FileName) { self.identifier = identifier }

    func copy() -> Storage {
      let copy = Storage(identifier: identifier)
      copy.current = current
      copy.history = history
      copy.versionCount = versionCount
      copy.lastChange = lastChange
      copy.error = error
      return copy
    }
  }

  /// The fields, this value's own: copied first if another value shares them.
  private mutating func unique() -> Storage {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    return storage
  }

  /// The identifier: the file name without `.archive`, exactly as the directory holds it.
  public var identifier: FileName {
    get { storage.identifier }
    set { unique().identifier = newValue }
  }
  /// The message now in the mailbox; `nil` once it was cleared.
  public internal(set) var current: MailboxVersion? {
    get { storage.current }
    _modify { yield &unique().current }
  }
  /// Earlier versions, oldest first, at most ``ModelConfiguration/historyDepth``.
  public internal(set) var history: [MailboxVersion] {
    get { storage.history }
    _modify { yield &unique().history }
  }
  /// Versions seen since the model started, including ones evicted from history.
  public internal(set) var versionCount: Int {
    get { storage.versionCount }
    set { unique().versionCount = newValue }
  }
  /// When the mailbox last changed (milliseconds since 1970): written, cleared or found unreadable.
  public internal(set) var lastChange: Int64 {
    get { storage.lastChange }
    set { unique().lastChange = newValue }
  }
  /// Why the mailbox could not be read the last time it was tried; the previous version is kept.
  public internal(set) var error: String? {
    get { storage.error }
    set { unique().error = newValue }
  }

  public init(identifier: FileName) { storage = Storage(identifier: identifier) }

  /// Whether the mailbox holds a message (it was not cleared).
  public var isPresent: Bool { current != nil }
  /// Whether the mailbox file exists: it holds a message, or it is there but could not be read
  /// (``error`` says why).
  public var isOnDisk: Bool { current != nil || error != nil }
  /// Whether the mailbox counts as present: it holds a message that could be read the last time
  /// it was tried. An unreadable one (a FIFO, a link, no permission) is on disk but not present.
  public var countsAsPresent: Bool { current != nil && error == nil }
  /// The sender of the current message, when the traffic journal named it.
  public var lastWriter: String? { current?.sender }

  /// The current or a history version with the given serial number.
  public func version(serial: UInt64) -> MailboxVersion? {
    if let current, current.serial == serial { return current }
    return history.last { $0.serial == serial }
  }
}

/// One version of a mailbox's content, as the watcher read it.
public struct MailboxVersion: Sendable, Hashable {
  /// Unique in the model, increasing with time.
  public var serial: UInt64
  /// The archive, or `nil` when it was larger than the watcher stores.
  public var bytes: [UInt8]?
  /// The file's size.
  public var size: Int
  /// The file's modification time, in nanoseconds since 1970.
  public var modifiedNanoseconds: Int64
  /// When the model learnt of it, in milliseconds since 1970.
  public var observedMilliseconds: Int64
  /// Sender, sequence and decode error, boxed: most versions at start-up have none, and every
  /// byte of this type is paid 100,000 times in a large directory.
  private var notes: VersionNotes?
  /// The message on one line, as the watcher made it when it read the file.
  private var storedSummary: String?

  /// The widest summary the watcher makes, in terminal columns: views cut it to their width.
  public static let summaryColumns = 256

  /// The message on one line, at most ``summaryColumns`` columns, made where the file was read
  /// (the watcher decodes it off the loop): `(N bytes, not kept)` when the bytes were not kept,
  /// empty when whoever made the version gave none.
  public var summary: String {
    if let storedSummary { return storedSummary }
    return bytes == nil ? DecodedMessage.notStoredSummary(size: size) : ""
  }

  /// The sender the journal named for the post that wrote it, if any.
  public var sender: String? {
    get { notes?.sender }
    set { notes = VersionNotes(sender: newValue, sequence: sequence, decodeError: decodeError) }
  }

  /// The journal sequence number of that post.
  public var sequence: UInt64? {
    get { notes?.sequence }
    set { notes = VersionNotes(sender: sender, sequence: newValue, decodeError: decodeError) }
  }

  /// Why the message is not shown as the archive it was meant to be, made with the summary
  /// (``DecodedMessage/decodeError``): a damaged archive's reason, or why the bytes are not a
  /// readable property list; `nil` for a message that decoded, or when whoever made the version
  /// gave none. Not escaped.
  public var decodeError: String? {
    get { notes?.decodeError }
    set { notes = VersionNotes(sender: sender, sequence: sequence, decodeError: newValue) }
  }

  public init(
    serial: UInt64, bytes: [UInt8]?, size: Int, modifiedNanoseconds: Int64, observedMilliseconds: Int64,
    sender: String? = nil, sequence: UInt64? = nil, summary: String? = nil, decodeError: String? = nil
  ) {
    self.serial = serial
    self.bytes = bytes
    self.size = size
    self.modifiedNanoseconds = modifiedNanoseconds
    self.observedMilliseconds = observedMilliseconds
    self.notes = VersionNotes(sender: sender, sequence: sequence, decodeError: decodeError)
    self.storedSummary = summary
  }
}

/// Who wrote a version, as the journal said, and why its message did not decode; immutable, so
/// versions share it safely.
final class VersionNotes: Sendable, Hashable {
  let sender: String?
  let sequence: UInt64?
  let decodeError: String?

  /// `nil` when there is nothing to say.
  init?(sender: String?, sequence: UInt64?, decodeError: String?) {
    guard sender != nil || sequence != nil || decodeError != nil else { return nil }
    self.sender = sender
    self.sequence = sequence
    self.decodeError = decodeError
  }

  static func == (left: VersionNotes, right: VersionNotes) -> Bool {
    left.sender == right.sender && left.sequence == right.sequence && left.decodeError == right.decodeError
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(sender)
    hasher.combine(sequence)
    hasher.combine(decodeError)
  }
}

/// What a traffic entry reports: one of the kinds the model makes, or a journal record's kind that
/// this build does not know, kept as stored.
public struct TrafficEntryKind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }

  /// A message passed through the library (the journal recorded it).
  public static let passed = TrafficEntryKind(rawValue: "passed")
  /// A notification without a message.
  public static let notification = TrafficEntryKind(rawValue: "notification")
  /// The mailbox changed, but no journal record describes the change: `cp`, MMWormhole on
  /// macOS, a synced directory.
  public static let changedWithoutRecord = TrafficEntryKind(rawValue: "changed-without-record")
  /// One mailbox was cleared (through the library, or removed by another program).
  public static let cleared = TrafficEntryKind(rawValue: "cleared")
  /// Every mailbox of the directory was cleared.
  public static let clearedAll = TrafficEntryKind(rawValue: "cleared-all")
  /// A message passed again from an earlier record or version (`replay_of` in the journal).
  public static let replayed = TrafficEntryKind(rawValue: "replayed")

  /// The kinds this model makes itself; any other is a journal record's kind as stored.
  public static let modelKinds: [TrafficEntryKind] = [
    .passed, .notification, .changedWithoutRecord, .cleared, .clearedAll, .replayed,
  ]

  /// The entry kind for a journal record of a kind this build does not know (a newer writer's):
  /// the kind as stored, or `record:` and the kind when it would spell one of ``modelKinds``.
  public init(recordKind kind: TrafficKind) {
    let spellsModelKind = Self.modelKinds.contains { $0.rawValue.utf8.elementsEqual(kind.rawValue.utf8) }
    self.init(rawValue: spellsModelKind ? "record:" + kind.rawValue : kind.rawValue)
  }

  /// Whether the model made this kind (rather than keeping a journal record's unknown kind).
  public var isModelKind: Bool { Self.modelKinds.contains(self) }

  public var description: String { rawValue }
}

/// One entry of the merged traffic stream.
public struct TrafficEntry: Sendable, Hashable, Identifiable {
  /// The model's number for the entry, increasing in the order entries were recognized.
  public var id: UInt64
  /// When it happened: the journal's time, or when the file change was seen (ms since 1970).
  public var milliseconds: Int64
  public var kind: TrafficEntryKind
  public var directory: FileName
  /// The identifier; empty for ``TrafficEntryKind/clearedAll``.
  public var identifier: FileName
  /// The transiting type's name, when the journal recorded it.
  public var transiting: String?
  /// The message's size in bytes (0 for notifications and clears).
  public var size: Int
  /// The sender's label, when the journal recorded it.
  public var sender: String?
  public var processIdentifier: Int32?
  /// The journal sequence number, for entries from the journal.
  public var sequence: UInt64?
  /// The sequence number this post replays.
  public var replayOf: UInt64?
  /// Why the post failed, when the journal recorded a failure.
  public var error: String?
  /// The mailbox version this post wrote, once the model saw it.
  public var versionSerial: UInt64?
  /// When the model learnt of it (ms since 1970, its own clock): the stream's order. `nil` for
  /// entries made by hand, which are ordered by ``milliseconds``.
  public var arrivalMilliseconds: Int64?
  /// Whether ``milliseconds``, the time the journal claims, cannot be right: ahead of when the
  /// record arrived, or (for a record read as it was written) long before it (see
  /// ``ModelConfiguration/clockToleranceMilliseconds``).
  public var hasDoubtfulTime = false
  /// The journal's device fields: the simulated device that made the record (`<pair>/<role>`),
  /// the one at the other end, where a session post stands, and the transfer identifier.
  public var details = TrafficDetails()

  /// The simulated device that made the record, `<pair>/<role>`.
  public var device: String? { details.device }
  /// The device at the other end of a session post.
  public var peer: String? { details.peer }
  /// Where a session post stands: queued, delivered, failed or cancelled.
  public var delivery: TrafficDelivery? { details.delivery }
  /// The identifier shared by the records of one write or session send (and the mailbox it wrote).
  public var transfer: String? { details.transfer }

  /// Whether a simulated device recorded something its peer sent: a session transfer identifier
  /// names its sender before `#` (`<pair>/<role>#…`), so a record whose device is not that
  /// sender was made by the receiver. `false` for records of plain directories.
  public var isIncoming: Bool { Self.isIncoming(device: device, transfer: transfer) }

  /// Whether a record of `device` with this transfer identifier was made by the receiver.
  public static func isIncoming(device: String?, transfer: String?) -> Bool {
    guard let device, let transfer, let mark = transfer.firstIndex(of: "#") else { return false }
    return transfer[..<mark] != device
  }

  public init(
    id: UInt64, milliseconds: Int64, kind: TrafficEntryKind, directory: FileName, identifier: FileName,
    transiting: String? = nil, size: Int, sender: String? = nil, processIdentifier: Int32? = nil,
    sequence: UInt64? = nil, replayOf: UInt64? = nil, error: String? = nil, versionSerial: UInt64? = nil,
    arrivalMilliseconds: Int64? = nil, hasDoubtfulTime: Bool = false,
    details: TrafficDetails = TrafficDetails()
  ) {
    self.details = details
    self.id = id
    self.milliseconds = milliseconds
    self.kind = kind
    self.directory = directory
    self.identifier = identifier
    self.transiting = transiting
    self.size = size
    self.sender = sender
    self.processIdentifier = processIdentifier
    self.sequence = sequence
    self.replayOf = replayOf
    self.error = error
    self.versionSerial = versionSerial
    self.arrivalMilliseconds = arrivalMilliseconds
    self.hasDoubtfulTime = hasDoubtfulTime
  }

  /// Where the entry sorts in the stream: when it arrived, not when it claims to have happened.
  var orderMilliseconds: Int64 { arrivalMilliseconds ?? milliseconds }
}
