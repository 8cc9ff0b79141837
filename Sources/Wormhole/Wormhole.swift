import Dispatch
import Foundation
import Glibc
import KeyedArchive
import PropertyList
import Synchronization
import WormholeVocabulary

/// A wormhole: a directory of mailboxes shared by processes, one `<identifier>.archive` per
/// message identifier, and a notification that wakes every process listening for an identifier.
///
/// The design is MMWormhole's, for Linux processes: a mailbox holds the last message passed for
/// its identifier as an `NSKeyedArchiver` archive (byte-compatible with Apple's), replaced
/// atomically; Darwin notifications are replaced by the directory's traffic journal, which every
/// pass appends to and every listener follows with inotify.
///
/// ```swift
/// let wormhole = try Wormhole(applicationGroupIdentifier: "group.com.example", optionalDirectory: "wormhole")
/// let token = try wormhole.listenForMessage(withIdentifier: "button") { received in
///   print(received.message as Any)
/// }
/// try wormhole.passMessage(.dictionary(["buttonNumber": .integer(1)]), identifier: "button")
/// ```
///
/// A `Wormhole` is safe to use from any thread.
public final class Wormhole: Sendable {
  /// Settings that MMWormhole hard-coded, and a few it lacked.
  public struct Options: Sendable {
    /// Flush every mailbox (and its directory) to disk before the notification. Off by default,
    /// as in MMWormhole: the mailbox survives a crash of the process either way, only a crash of
    /// the machine can lose it.
    public var isDurable = false
    /// The sender label recorded in the traffic journal; the program's name by default. Labels
    /// longer than ``Wormhole/maximumSenderLength`` bytes are cut (on a character boundary).
    public var sender = Wormhole.programName
    /// The journal size that triggers rotation.
    public var journalLimit = TrafficJournal.defaultLimit
    /// The largest mailbox read, in bytes; larger ones are reported rather than read.
    public var maximumMessageBytes = 64 << 20
    /// The queue listeners are called on. By default (`nil`) they run on the wormhole's own
    /// listener thread, one at a time and in order, which is the fastest; a listener that blocks
    /// there delays the next ones (the journal keeps what arrives meanwhile).
    /// `DispatchQueue.main` gives MMWormhole's behaviour in a program that runs the main queue.
    public var listenerQueue: DispatchQueue?
    /// Create the directory (mode 0700) when it does not exist.
    public var createsDirectory = true
    /// How long a post waits for another process that holds the journal's lock (a stopped or
    /// stuck writer), in seconds, before failing with ``WormholeError/journalLocked(path:holder:seconds:)``.
    public var journalLockTimeout: Double = 5

    public init() {}
  }

  /// The wormhole directory that holds the traffic journal and, for the file types, the
  /// mailboxes (for a session type, the device's own mailboxes of its application group).
  public let directory: String
  public let transitingType: TransitingType
  /// How messages travel: the implementation of ``transitingType``.
  public let transiting: any WormholeTransiting
  public let options: Options
  private let journal: TrafficJournalWriter
  let listeners: ListenerRegistry

  /// A wormhole for an application group, in `<home>/AppGroup/<group>/<optionalDirectory>`.
  ///
  /// - Parameters:
  ///   - home: The wormhole home; `nil` uses ``WormholeHome/defaultPath(environment:)``.
  public convenience init(
    applicationGroupIdentifier: String, optionalDirectory: String? = nil,
    transitingType: TransitingType = .file, home: String? = nil, options: Options = Options()
  ) throws(WormholeError) {
    let path = try WormholeHome.directoryPath(
      applicationGroupIdentifier: applicationGroupIdentifier, optionalDirectory: optionalDirectory,
      home: home ?? WormholeHome.defaultPath())
    try self.init(directory: path, transitingType: transitingType, options: options)
  }

  /// A wormhole in `directory`, for example a copied or mounted simulator app group, with one of
  /// the file types (``FileTransiting`` or ``CoordinatedFileTransiting``). The directory is
  /// created when missing unless `options.createsDirectory` is off. A session type needs a pair,
  /// not a directory: it throws ``WormholeError/transitingTypeUnavailable(_:)`` here (open it on
  /// a pair's device with DevicePairing's `Wormhole(pair:role:transitingType:applicationGroup:home:)`).
  public convenience init(
    directory: String, transitingType: TransitingType = .file, options: Options = Options()
  )
    throws(WormholeError)
  {
    let transiting: any WormholeTransiting
    switch transitingType {
    case .file: transiting = FileTransiting(directory: directory, isDurable: options.isDurable)
    case .coordinatedFile:
      transiting = CoordinatedFileTransiting(directory: directory, isDurable: options.isDurable)
    case .sessionContext, .sessionMessage, .sessionFile:
      throw .transitingTypeUnavailable(transitingType)
    }
    try self.init(transiting: transiting, options: options)
  }

  /// A wormhole whose messages travel by `transiting`: one of the file types, a session type on
  /// a paired device (DevicePairing), or an implementation of your own. Its directory is created
  /// when missing unless `options.createsDirectory` is off; the journal is kept there.
  public init(transiting: some WormholeTransiting, options: Options = Options()) throws(WormholeError) {
    let path = trimmingTrailingSlashes(transiting.directory)
    if options.createsDirectory { try FileSystem.makeDirectories(path) }
    try FileSystem.checkDirectory(path)
    self.directory = path
    self.transitingType = transiting.transitingType
    self.transiting = transiting
    var options = options
    options.sender = Self.cut(options.sender, toBytes: Self.maximumSenderLength)
    self.options = options
    self.journal = TrafficJournalWriter(
      directory: path, limit: options.journalLimit, lockTimeout: options.journalLockTimeout)
    let listeners = ListenerRegistry(
      directory: path, options: options, followsJournal: !transiting.deliversIncomingMessages)
    self.listeners = listeners
    if transiting.deliversIncomingMessages {
      transiting.deliverIncomingMessages(
        to: TransitingInbox(registry: listeners))
    }
  }

  /// A wormhole in the directory at `url`.
  public convenience init(
    directoryURL url: URL, transitingType: TransitingType = .file, options: Options = Options()
  )
    throws(WormholeError)
  {
    try self.init(directory: url.path, transitingType: transitingType, options: options)
  }

  /// The longest sender label kept, in UTF-8 bytes: journal records stay short lines.
  public static let maximumSenderLength = 128

  static func cut(_ text: String, toBytes limit: Int) -> String {
    guard text.utf8.count > limit else { return text }
    var result = ""
    for character in text {
      if result.utf8.count + character.utf8.count > limit { break }
      result.append(character)
    }
    return result
  }

  /// The name of this program, for the journal's sender label.
  public static let programName: String = {
    let path = CommandLine.arguments.first ?? "wormhole"
    return path.split(separator: "/").last.map(String.init) ?? "wormhole"
  }()

  /// The path of the mailbox for `identifier`.
  public func mailboxPath(forIdentifier identifier: String) throws(WormholeError) -> String {
    try MessageIdentifier.validate(identifier)
    return directory + "/" + MessageIdentifier.fileName(for: identifier)
  }

  // MARK: Passing

  /// Passes `message` to every listener of `identifier` and leaves it in the mailbox; a `nil`
  /// message only posts the notification and leaves the mailbox as it is. `replayOf` marks the
  /// post in the journal as a replay of that record.
  ///
  /// Failures are thrown, never swallowed, and recorded in the journal as `failed`.
  @discardableResult
  public func passMessage(_ message: ArchivedValue?, identifier: String, replayOf: UInt64? = nil)
    throws(WormholeError) -> TrafficRecord
  {
    try MessageIdentifier.validate(identifier)
    guard let message else {
      guard transiting.deliversIncomingMessages else {
        return try post(kind: .notify, identifier: identifier, bytes: 0, replayOf: replayOf)
      }
      return try notifyElsewhere(identifier: identifier, replayOf: replayOf)
    }
    let archive: [UInt8]
    do {
      archive = try KeyedArchiveEncoder().encodeBytes(message)
    } catch {
      throw .encodingFailed(error.description)
    }
    return try passArchive(archive, identifier: identifier, replayOf: replayOf)
  }

  /// Passes a `Codable` value, encoded as a property list (see the README: the value is encoded
  /// with `PropertyListEncoder`'s layout and archived as Foundation objects, so an Apple app reads
  /// it as an `NSDictionary`, `NSArray` or scalar).
  @discardableResult
  public func passMessage<Value: Encodable>(_ value: Value, identifier: String) throws(WormholeError)
    -> TrafficRecord
  {
    try passMessage(try MessageCoding.archivedValue(encoding: value), identifier: identifier)
  }

  /// Passes an `NSCoding` object, archived by Foundation's `NSKeyedArchiver` as MMWormhole does;
  /// `nil` only posts the notification. Prefer ``passMessage(_:identifier:)-(ArchivedValue?,_)``
  /// or a `Codable` value for large messages: Foundation's archiver is quadratic in the number of
  /// objects on Linux.
  @discardableResult
  public func passMessageObject(_ object: (any NSCoding)?, identifier: String) throws(WormholeError)
    -> TrafficRecord
  {
    try MessageIdentifier.validate(identifier)
    guard let object else { return try passMessage(nil, identifier: identifier) }
    let data: Data
    do {
      data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
    } catch {
      throw .encodingFailed(String(describing: error))
    }
    return try passArchive(Array(data), identifier: identifier)
  }

  /// Passes the bytes of an existing archive as they are, for example one read from another
  /// mailbox. `replayOf` marks the post in the journal as a replay of that record.
  @discardableResult
  public func passArchive(_ archive: Data, identifier: String, replayOf: UInt64? = nil) throws(WormholeError)
    -> TrafficRecord
  {
    try passArchive(Array(archive), identifier: identifier, replayOf: replayOf)
  }

  /// Passes an archive with the device fields of its journal record (``TrafficDetails``) and,
  /// for a simulated device storing what a session carried, that session's transiting type in the
  /// record. The write gets a transfer identifier (the one in `details`, else a new random one),
  /// kept in the mailbox's ``transferAttributeName`` extended attribute and in the record, so a
  /// watcher pairs the file with its record exactly.
  @discardableResult
  package func passArchive(
    _ archive: [UInt8], identifier: String, replayOf: UInt64? = nil,
    details: TrafficDetails = TrafficDetails(),
    recordedAs transiting: TransitingType? = nil
  ) throws(WormholeError) -> TrafficRecord {
    try MessageIdentifier.validate(identifier)
    var details = details.over(self.transiting.recordDetails)
    let transfer = details.transfer ?? Self.newTransferIdentifier()
    details.transfer = transfer
    // A journal that cannot be used is reported before the mailbox is written: nothing half-done.
    try journal.prepare()
    let write: TransitingWrite
    do throws(WormholeError) {
      write = try self.transiting.writeMessage(archive, identifier: identifier, transfer: transfer)
    } catch {
      var failed = details
      if !transitingType.isAvailable { failed.delivery = failed.delivery ?? .failed }
      recordFailure(
        kind: .pass, identifier: identifier, bytes: archive.count, error: error, details: failed,
        transiting: transiting)
      throw error
    }
    return try post(
      kind: .pass, identifier: identifier, bytes: archive.count, replayOf: replayOf,
      details: recorded(details, write), transiting: transiting)
  }

  /// A notification without a message through a transiting that carries it elsewhere (a
  /// session's counterpart): an empty archive written, journaled as `notify`.
  private func notifyElsewhere(identifier: String, replayOf: UInt64?) throws(WormholeError) -> TrafficRecord {
    var details = transiting.recordDetails
    let transfer = Self.newTransferIdentifier()
    details.transfer = transfer
    try journal.prepare()
    let write: TransitingWrite
    do throws(WormholeError) {
      write = try transiting.writeMessage([], identifier: identifier, transfer: transfer)
    } catch {
      details.delivery = details.delivery ?? .failed
      recordFailure(kind: .notify, identifier: identifier, bytes: 0, error: error, details: details)
      throw error
    }
    return try post(
      kind: .notify, identifier: identifier, bytes: 0, replayOf: replayOf, details: recorded(details, write))
  }

  /// The details of a post after `write`: the write's over the caller's; a post that notifies no
  /// listener always says where the delivery stands (see ``TransitingWrite/notifiesListeners``).
  private func recorded(_ details: TrafficDetails, _ write: TransitingWrite) -> TrafficDetails {
    var result = write.details.over(details)
    if !write.notifiesListeners && result.delivery == nil { result.delivery = .delivered }
    // A transiting that journals itself names the transfer (or not) in its own terms.
    if transiting.journalsItsOwnTraffic { result.transfer = write.details.transfer }
    return result
  }

  /// The extended attribute that holds a mailbox's transfer identifier (``TrafficRecord/transfer``)
  /// when this library wrote it: `user.wormhole.transfer`. File systems without user extended
  /// attributes simply lack it, and watchers fall back to pairing by identifier, size and time.
  public static let transferAttributeName = "user.wormhole.transfer"

  /// A new transfer identifier for a write: 16 lowercase hexadecimal digits, random.
  package static func newTransferIdentifier() -> String {
    let value = UInt64.random(in: 0...UInt64.max)
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }

  /// Journals a post that wrote nothing to a mailbox of this directory: a simulated device's
  /// session message, context or transfer as it is sent, queued, delivered, cancelled or fails.
  /// `transiting` is the session type the record names.
  @discardableResult
  package func record(
    kind: TrafficKind = .pass, identifier: String, bytes: Int, transiting: TransitingType,
    details: TrafficDetails, error: String? = nil
  ) throws(WormholeError) -> TrafficRecord {
    try journal.prepare()
    return try journal.append { sequence, milliseconds in
      TrafficRecord(
        sequence: sequence, milliseconds: milliseconds, processIdentifier: getpid(), sender: options.sender,
        transiting: transiting.rawValue, kind: kind, identifier: identifier, bytes: bytes,
        outcome: error == nil ? .ok : .failed, error: error, details: details)
    }
  }

  /// A record to journal with ``record(contentsOf:)``: what ``record(kind:identifier:bytes:transiting:details:error:)``
  /// takes, as a value.
  package struct JournalEntry: Sendable {
    package var kind: TrafficKind
    package var identifier: String
    package var bytes: Int
    package var transiting: TransitingType
    package var details: TrafficDetails
    package var error: String?
    /// When the event the entry journals happened (milliseconds since 1970); `nil`: when the
    /// entry is written. A writer that gathers entries before writing them gives each its time.
    package var milliseconds: Int64?

    package init(
      kind: TrafficKind = .pass, identifier: String, bytes: Int, transiting: TransitingType,
      details: TrafficDetails, error: String? = nil, milliseconds: Int64? = nil
    ) {
      (self.kind, self.identifier, self.bytes, self.transiting) = (kind, identifier, bytes, transiting)
      (self.details, self.error, self.milliseconds) = (details, error, milliseconds)
    }
  }

  /// Journals several posts that wrote no mailbox, in order, in one locked write: a device's
  /// session journal hands over what it gathered at once (one lock and one `write` instead of
  /// one each).
  @discardableResult
  package func record(contentsOf entries: [JournalEntry]) throws(WormholeError) -> [TrafficRecord] {
    try journal.prepare()
    return try journal.append(count: entries.count) { index, sequence, milliseconds in
      let entry = entries[index]
      return TrafficRecord(
        sequence: sequence, milliseconds: entry.milliseconds ?? milliseconds, processIdentifier: getpid(),
        sender: options.sender, transiting: entry.transiting.rawValue, kind: entry.kind,
        identifier: entry.identifier,
        bytes: entry.bytes, outcome: entry.error == nil ? .ok : .failed, error: entry.error,
        details: entry.details)
    }
  }

  /// Passes several archives in order as one batch: each identifier's mailbox is written once,
  /// with its last archive (mailboxes keep only the latest, so the earlier ones would be replaced
  /// at once anyway), then the journal gets one record per archive, in order, so listeners hear
  /// every pass. Nothing is journaled when a mailbox cannot be written. For a receiver storing
  /// many queued transfers: one file replaced per identifier instead of one per archive.
  @discardableResult
  package func passArchives(_ archives: [(identifier: String, archive: [UInt8])]) throws(WormholeError)
    -> [TrafficRecord]
  {
    try passArchives(archives.map { ($0.identifier, $0.archive, TrafficDetails()) }, recordedAs: nil)
  }

  /// ``passArchives(_:)`` with each archive's device fields (a transfer identifier is made for
  /// those without one; the mailbox written keeps its identifier's last one) and the transiting
  /// type the records name.
  @discardableResult
  package func passArchives(
    _ archives: [(identifier: String, archive: [UInt8], details: TrafficDetails)],
    recordedAs transiting: TransitingType?
  ) throws(WormholeError) -> [TrafficRecord] {
    // Only mailboxes keep just the latest: any other transiting sends each archive.
    guard transitingType == .file || transitingType == .coordinatedFile else {
      var records: [TrafficRecord] = []
      for item in archives {
        records.append(
          try passArchive(
            item.archive, identifier: item.identifier, details: item.details, recordedAs: transiting))
      }
      return records
    }
    let archives = archives.map { item in
      var details = item.details.over(self.transiting.recordDetails)
      if details.transfer == nil { details.transfer = Self.newTransferIdentifier() }
      return (identifier: item.identifier, archive: item.archive, details: details)
    }
    var last: [String: Int] = [:]
    for (index, item) in archives.enumerated() {
      try MessageIdentifier.validate(item.identifier)
      last[item.identifier] = index
    }
    try journal.prepare()
    for (index, item) in archives.enumerated() where last[item.identifier] == index {
      do throws(WormholeError) {
        _ = try self.transiting.writeMessage(
          item.archive, identifier: item.identifier, transfer: item.details.transfer ?? "")
      } catch {
        recordFailure(
          kind: .pass, identifier: item.identifier, bytes: item.archive.count, error: error,
          details: item.details, transiting: transiting)
        throw error
      }
    }
    var records: [TrafficRecord] = []
    records.reserveCapacity(archives.count)
    for item in archives {
      records.append(
        try post(
          kind: .pass, identifier: item.identifier, bytes: item.archive.count, replayOf: nil,
          details: item.details, transiting: transiting))
    }
    return records
  }

  // MARK: Reading

  /// The message in the mailbox for `identifier`, decoded without instantiating any class, or
  /// `nil` when the mailbox is empty.
  public func message(withIdentifier identifier: String) throws(WormholeError) -> ArchivedValue? {
    guard let archive = try archiveBytes(withIdentifier: identifier) else { return nil }
    return try MessageCoding.decode(archive, path: try mailboxPath(forIdentifier: identifier))
  }

  /// The message for `identifier` decoded as `Value` (the inverse of the `Codable` pass).
  public func message<Value: Decodable>(withIdentifier identifier: String, as type: Value.Type)
    throws(WormholeError) -> Value?
  {
    guard let value = try message(withIdentifier: identifier) else { return nil }
    return try MessageCoding.decode(type, from: value, path: try mailboxPath(forIdentifier: identifier))
  }

  /// The message for `identifier` unarchived by Foundation's `NSKeyedUnarchiver` with secure
  /// coding: only `classes` (and Foundation's property-list classes) may be instantiated, so list
  /// every class the message may contain, nested ones included.
  ///
  /// The archive is first checked by this library's own decoder, which never instantiates a
  /// class, so that a damaged or hostile mailbox is reported instead of reaching Foundation's
  /// unarchiver (which crashes on deep nesting): archives nesting deeper than
  /// ``maximumObjectNesting`` levels are refused.
  public func messageObject(withIdentifier identifier: String, ofClasses classes: [AnyClass])
    throws(WormholeError) -> Any?
  {
    guard let bytes = try archiveBytes(withIdentifier: identifier) else { return nil }
    let path = try mailboxPath(forIdentifier: identifier)
    // The inspector resolves the whole graph without instantiating anything (on a large stack
    // when it nests deeply); only a valid archive within the nesting limit goes on to Foundation.
    let document: PropertyListDocument
    do {
      let inspection = try KeyedArchiveInspector(maximumDepth: Self.maximumObjectNesting).inspect(bytes)
      if let reason = inspection.notArchiveReason {
        throw WormholeError.decodingFailed(
          path: path, reason: "not handed to Foundation's unarchiver: \(reason)")
      }
      // A keyed archive's property list is flat (objects refer to each other by UID), so the
      // shallow in-place limit reads any valid one.
      document = try PropertyListReader(maximumDepth: inPlaceNestingLimit).read(bytes)
    } catch let error as WormholeError {
      throw error
    } catch {
      throw .decodingFailed(path: path, reason: "\(error)")
    }
    let allowed: [AnyClass] =
      classes + [
        NSDictionary.self, NSArray.self, NSString.self, NSNumber.self, NSData.self, NSDate.self, NSNull.self,
      ]
    // Foundation on Linux stops the process (a fatal error, not a thrown one) when an archive holds
    // a class it was not allowed to decode, so every class the archive names is checked here.
    let allowedNames = Set(allowed.map { NSStringFromClass($0) }).union(Self.propertyListClassNames)
    if case .array(let objects)? = document.root["$objects"] {
      for object in objects {
        guard case .string(let name)? = object["$classname"] else { continue }
        guard allowedNames.contains(name) else {
          throw .decodingFailed(
            path: path, reason: "it holds an instance of \(name), which is not among the classes allowed")
        }
      }
    }
    do {
      return try NSKeyedUnarchiver.unarchivedObject(ofClasses: allowed, from: Data(bytes))
    } catch {
      throw .decodingFailed(path: path, reason: String(describing: error))
    }
  }

  /// Foundation's property-list classes and their mutable and concrete variants, always allowed.
  static let propertyListClassNames: Set<String> = [
    "NSDictionary", "NSMutableDictionary", "NSArray", "NSMutableArray", "NSString", "NSMutableString",
    "NSNumber", "NSData", "NSMutableData", "NSDate", "NSNull",
  ]

  /// The deepest object nesting handed to Foundation's unarchiver, which recurses on the calling
  /// thread's stack (a secondary thread may have as little as 512 KB).
  public static let maximumObjectNesting = 128

  /// The raw archive in the mailbox for `identifier`, or `nil` when it is empty.
  public func archive(withIdentifier identifier: String) throws(WormholeError) -> Data? {
    try archiveBytes(withIdentifier: identifier).map { Data($0) }
  }

  func archiveBytes(withIdentifier identifier: String) throws(WormholeError) -> [UInt8]? {
    try MessageIdentifier.validate(identifier)
    return try transiting.message(withIdentifier: identifier, limit: options.maximumMessageBytes)
  }

  /// The identifiers that have a mailbox in this directory, sorted by their bytes. Mailboxes
  /// whose names are not valid UTF-8 cannot be `String` identifiers: ``mailboxFileNames()``
  /// lists them too.
  public func identifiers() throws(WormholeError) -> [String] {
    try mailboxFileNames().compactMap { MessageIdentifier.identifier(fromFileName: $0)?.string }
  }

  /// The file names of every mailbox in this directory (`<identifier>.archive`, matched by bytes,
  /// names that are not valid UTF-8 included), sorted by their bytes.
  public func mailboxFileNames() throws(WormholeError) -> [FileName] {
    try FileSystem.entries(of: directory).filter { MessageIdentifier.identifier(fromFileName: $0) != nil }
      .sorted()
  }

  /// Every retained record of this directory's traffic journal, oldest first.
  public func trafficRecords() throws(WormholeError) -> [TrafficRecord] {
    try TrafficJournal.records(inDirectory: directory)
  }

  // MARK: Clearing

  /// Removes the mailbox for `identifier`: a regular file, or a symbolic link (removed itself,
  /// never followed); anything else of that name is left alone and reported. Returns the
  /// journal record of the clear.
  @discardableResult
  public func clearMessageContents(forIdentifier identifier: String) throws(WormholeError) -> TrafficRecord {
    try MessageIdentifier.validate(identifier)
    return try clear(identifier: identifier) { () throws(WormholeError) in
      try transiting.deleteMessage(withIdentifier: identifier)
    }
  }

  /// Removes the mailbox named `fileName` (`<identifier>.archive`, as ``mailboxFileNames()``
  /// lists it), by its bytes: for a mailbox whose name is not valid UTF-8 and so has no
  /// `String` identifier. Its journal record names the identifier with undecodable bytes written
  /// as `\x{ff}`. Returns the journal record of the clear.
  @discardableResult
  public func clearMessageContents(forFileName fileName: FileName) throws(WormholeError) -> TrafficRecord {
    guard let identifier = MessageIdentifier.identifier(fromFileName: fileName) else {
      throw .invalidIdentifier(
        fileName.lossyText,
        reason: "it is not a mailbox name (<identifier>\(MessageIdentifier.fileExtension))")
    }
    let text = identifier.string ?? identifier.lossyText
    let transiting = self.transiting
    return try clear(identifier: text) { () throws(WormholeError) in
      switch transiting {
      case let files as FileTransiting: try files.deleteMessage(named: fileName)
      case let files as CoordinatedFileTransiting: try files.deleteMessage(named: fileName, identifier: text)
      default:
        guard let string = identifier.string else {
          throw .invalidIdentifier(
            text, reason: "it is not valid UTF-8, which only the file transiting types can remove by name")
        }
        try transiting.deleteMessage(withIdentifier: string)
      }
    }
  }

  private func clear(identifier: String, _ delete: () throws(WormholeError) -> Void) throws(WormholeError)
    -> TrafficRecord
  {
    try journal.prepare()
    do throws(WormholeError) {
      try delete()
    } catch {
      recordFailure(kind: .clear, identifier: identifier, bytes: 0, error: error)
      throw error
    }
    return try post(kind: .clear, identifier: identifier, bytes: 0, replayOf: nil)
  }

  /// Removes every mailbox of this directory (regular files and symbolic links whose names are
  /// `<valid identifier>.archive`, matched by bytes) and nothing else: no other file, no
  /// subdirectory, FIFO, socket or device, nothing outside it. Returns the journal record of the
  /// clear-all.
  @discardableResult
  public func clearAllMessageContents() throws(WormholeError) -> TrafficRecord {
    try journal.prepare()
    do throws(WormholeError) {
      try transiting.deleteAllMessages()
    } catch {
      recordFailure(kind: .clearAll, identifier: "", bytes: 0, error: error)
      throw error
    }
    return try post(kind: .clearAll, identifier: "", bytes: 0, replayOf: nil)
  }

  // MARK: Listening

  /// Calls `listener` on ``Options/listenerQueue`` whenever a message or notification is passed
  /// for `identifier`, from any process, until the returned token is cancelled. Several listeners
  /// may listen for the same identifier. Rapid passes may coalesce: the mailbox is the truth, the
  /// notification only rings the bell.
  public func listenForMessage(
    withIdentifier identifier: String, listener: @escaping @Sendable (ReceivedMessage) -> Void
  ) throws(WormholeError) -> ListenerToken {
    try MessageIdentifier.validate(identifier)
    return try listeners.add(identifier: identifier, reader: self, listener: listener)
  }

  /// Like ``listenForMessage(withIdentifier:listener:)``, and also hears what was passed from
  /// `since` on before the listener was installed: the traffic journal's records for
  /// `identifier` dated at or after `since` (wall-clock milliseconds since 1970, as
  /// ``TrafficRecord/milliseconds``) are delivered first, coalesced as a burst is, then what
  /// arrives live; a record both read is delivered once, and nothing dated before `since` is.
  /// Without a ``Options/listenerQueue``, those first deliveries run on the calling thread,
  /// before this returns.
  ///
  /// Only retained records can be caught up (the current journal and its rotated generation). A
  /// session transiting type's in-process deliveries have no journal to catch up from: there
  /// `since` changes nothing.
  public func listenForMessage(
    withIdentifier identifier: String, since: Int64, listener: @escaping @Sendable (ReceivedMessage) -> Void
  ) throws(WormholeError) -> ListenerToken {
    try MessageIdentifier.validate(identifier)
    return try listeners.add(
      identifier: identifier, reader: self, catchingUp: { $0.milliseconds >= since }, listener: listener)
  }

  /// Like ``listenForMessage(withIdentifier:since:listener:)`` from the start of a process
  /// (``ProcessStart/current()``): hears every message passed after the process started however
  /// long it took to get here (a script's `listen ID &` followed at once by `pass ID`), and none
  /// passed before, even in the 10 ms of the kernel's start tick (``ProcessStart/startedBefore(_:)``).
  public func listenForMessage(
    withIdentifier identifier: String, sinceStartOf start: ProcessStart,
    listener: @escaping @Sendable (ReceivedMessage) -> Void
  ) throws(WormholeError) -> ListenerToken {
    try MessageIdentifier.validate(identifier)
    return try listeners.add(
      identifier: identifier, reader: self, catchingUp: { start.startedBefore($0) }, listener: listener)
  }

  /// Calls `handler` (on the journal follower's own thread) with what the
  /// journal follower behind the listeners notices: a journal that cannot be read, a journal
  /// restarted, the directory removed or created again. Replaces any earlier handler; `nil`
  /// stops the calls.
  public func observeJournalNotices(_ handler: (@Sendable (TrafficJournalNotice) -> Void)?) {
    listeners.noticeHandler.withLock { $0.handle = handler }
  }

  /// Stops every listener for `identifier`.
  public func stopListening(forIdentifier identifier: String) {
    listeners.removeAll(identifier: identifier)
  }

  /// The messages passed for `identifier` from now on, as an asynchronous sequence. The stream
  /// keeps the newest 1,024 undelivered messages when its consumer falls behind; it ends only
  /// when the consumer stops iterating.
  public func messages(withIdentifier identifier: String) throws(WormholeError) -> AsyncStream<
    ReceivedMessage
  > {
    let (stream, continuation) = AsyncStream.makeStream(
      of: ReceivedMessage.self, bufferingPolicy: .bufferingNewest(1024))
    let token = try listenForMessage(withIdentifier: identifier) { continuation.yield($0) }
    continuation.onTermination = { _ in token.cancel() }
    return stream
  }

  // MARK: Internals

  @discardableResult
  private func post(
    kind: TrafficKind, identifier: String, bytes: Int, replayOf: UInt64?,
    details: TrafficDetails = TrafficDetails(), transiting: TransitingType? = nil
  ) throws(WormholeError) -> TrafficRecord {
    func record(_ sequence: UInt64, _ milliseconds: Int64) -> TrafficRecord {
      TrafficRecord(
        sequence: sequence, milliseconds: milliseconds, processIdentifier: getpid(), sender: options.sender,
        transiting: (transiting ?? transitingType).rawValue, kind: kind, identifier: identifier, bytes: bytes,
        outcome: .ok, replayOf: replayOf, details: details)
    }
    // A session's device journals the event itself, under the transfer identifier both devices
    // share: a second record here would count every send twice.
    guard !self.transiting.journalsItsOwnTraffic else {
      return record(0, Self.nowMilliseconds())
    }
    return try journal.append { sequence, milliseconds in record(sequence, milliseconds) }
  }

  /// The time now, in milliseconds since 1970, for a record made in memory.
  private static func nowMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
  }

  private func recordFailure(
    kind: TrafficKind, identifier: String, bytes: Int, error: WormholeError,
    details: TrafficDetails = TrafficDetails(), transiting: TransitingType? = nil
  ) {
    guard !self.transiting.journalsItsOwnTraffic else { return }  // see post(...)
    _ = try? journal.append { sequence, milliseconds in
      TrafficRecord(
        sequence: sequence, milliseconds: milliseconds, processIdentifier: getpid(), sender: options.sender,
        transiting: (transiting ?? transitingType).rawValue, kind: kind, identifier: identifier, bytes: bytes,
        outcome: .failed, error: error.description, details: details)
    }
  }
}

/// What a listener receives.
public struct ReceivedMessage: Sendable {
  public var identifier: String
  /// The message in the mailbox when the notification was handled; `nil` for a notification
  /// without a message, an empty mailbox, or a failure.
  public var message: ArchivedValue?
  /// The mailbox's bytes, when a message was read.
  public var archive: Data?
  /// The journal record of the post that rang.
  public var record: TrafficRecord
  /// Why the mailbox could not be read or decoded, when it could not.
  public var failure: WormholeError?

  /// Whether the post was a notification without a message.
  public var isNotificationOnly: Bool { record.kind == .notify }
}

/// Cancels a listener. Cancelling twice, or after ``Wormhole/stopListening(forIdentifier:)``, does
/// nothing.
public final class ListenerToken: Sendable, Hashable {
  public let identifier: String
  private let onCancel: Mutex<(@Sendable () -> Void)?>

  init(identifier: String, onCancel: @escaping @Sendable () -> Void) {
    self.identifier = identifier
    self.onCancel = Mutex(onCancel)
  }

  public func cancel() {
    let action = onCancel.withLock { action in
      defer { action = nil }
      return action
    }
    action?()
  }

  public static func == (lhs: ListenerToken, rhs: ListenerToken) -> Bool { lhs === rhs }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The per-identifier byte-range locks of `coordinated-file`, in the directory's `.wormhole-lock`.
final class Coordination: Sendable {
  static let fileName = ".wormhole-lock"
  let path: String

  init(path: String) { self.path = path }

  /// A lock offset for `identifier` (FNV-1a, 40 bits): distinct identifiers rarely share one, and
  /// when they do they only serialize more than they must.
  static func offset(for identifier: String) -> Int64 {
    var hash = FNV1a()
    hash.add(identifier.utf8)
    return Int64(hash.value & 0xFF_FFFF_FFFF) + 1
  }

  func withLock<T>(offset: Int64, length: Int64, kind: RangeLock.Kind, _ body: () throws(WormholeError) -> T)
    throws(WormholeError) -> T
  {
    // A descriptor per operation: OFD locks taken through one descriptor do not exclude each
    // other, so threads sharing one would not serialize.
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else { throw .fileSystem(operation: "open the lock file", path: path, code: errno) }
    defer { _ = close(descriptor) }
    let code = RangeLock.lock(descriptor, kind: kind, offset: offset, length: length)
    guard code == 0 else { throw .fileSystem(operation: "lock", path: path, code: code) }
    defer { RangeLock.unlock(descriptor, offset: offset, length: length) }
    return try body()
  }
}
