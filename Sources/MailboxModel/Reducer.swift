import WormholeVocabulary

/// Where one history version sits, in the order versions entered history (oldest first).
struct HistoryKey: Sendable {
  var directory: FileName
  var identifier: FileName
  var serial: UInt64
}

extension ModelState {
  /// The reducer: applies one event, at time `now` (milliseconds since 1970), and says what the
  /// shell should do next. The only way the state changes; no I/O.
  ///
  /// Pairing file events with journal records: a pass through the library both renames a file
  /// (a file event) and appends a journal record, in either order as the watcher sees them. A
  /// written mailbox pairs with a `pass` record of the same directory, identifier and size, and
  /// a removed one with a `clear` of that identifier or a `clear-all` of the directory, when the
  /// two arrive within ``ModelConfiguration/matchWindowMilliseconds`` of each other. Journal
  /// records make their traffic entry at once (with the sender); a file change waits for its
  /// record until the window ends, and only then, unpaired, becomes a
  /// ``TrafficEntryKind/changedWithoutRecord`` (or an unattributed ``TrafficEntryKind/cleared``).
  /// When several pass records of one identifier wait (a burst the watcher coalesced into one
  /// read), the newest one of the right size pairs and the older ones stand alone.
  ///
  /// A file that carries a transfer identifier (the library's `user.wormhole.transfer`) pairs
  /// only with the record of the same directory and transfer, whatever the sizes and the order,
  /// and both wait ``ModelConfiguration/transferMatchWindowMilliseconds`` for each other. A file
  /// without one keeps the rule above (a record with a transfer identifier pairs with it by size
  /// within the window: a file system without user extended attributes keeps none). A simulated
  /// device's session records wrote no mailbox (a message, a context, the sender's side of a
  /// transfer) and wait for none; the receiver's stored transfer did.
  public mutating func apply(_ event: ModelEvent, at now: Int64) -> [ModelEffect] {
    var appended: [TrafficEntry] = []
    let noticesBefore = noticesAdded
    expire(now: now, appended: &appended)
    switch event {
    case .directoryAppeared(let path):
      ensureDirectory(path)
    case .directoryVanished(let path):
      removeDirectory(path)
    case .directoryScanned(let path, let listing, let initial):
      ensureDirectory(path)
      let gone = (directories[path]?.mailboxes ?? [:]).values.filter {
        $0.isOnDisk && listing[$0.identifier] == nil
      }
      for mailbox in gone.sorted(by: { $0.identifier < $1.identifier }) {
        removeMailbox(path, mailbox.identifier, now: now, initial: initial)
      }
      if initial {
        directories[path]?.mailboxes.reserveCapacity(listing.count)
        for (identifier, observation) in listing {
          change(path, identifier, observation, now: now, initial: true)
        }
      } else {
        // Sorted, so that the traffic a rescan makes comes in a stable order.
        for identifier in listing.keys.sorted() {
          if let observation = listing[identifier] {
            change(path, identifier, observation, now: now, initial: false)
          }
        }
      }
    case .mailboxChanged(let directory, let identifier, let observation):
      ensureDirectory(directory)
      change(directory, identifier, observation, now: now, initial: false)
    case .mailboxRemoved(let directory, let identifier):
      removeMailbox(directory, identifier, now: now, initial: false)
    case .journalRecords(let directory, let records, let initial):
      ensureDirectory(directory)
      var batch: [TrafficEntry] = []
      for record in records {
        noticeGap(before: record, directory: directory)
        receive(record, directory: directory, now: now, initial: initial, appended: &appended, batch: &batch)
      }
      if initial { mergeTraffic(batch) }
    case .directoryError(let directory, let message):
      directories[directory]?.error = message
    case .watchLimitReached(let directory, let message):
      directories[directory]?.isPolled = true
      addNotice(message)
    case .notice(let message):
      addNotice(message)
    case .tick:
      break
    }
    evictHistory()
    trimTraffic()
    var effects: [ModelEffect] = []
    if !appended.isEmpty { effects.append(.trafficAppended(appended)) }
    let added = min(noticesAdded - noticesBefore, notices.count)
    if added > 0 { effects.append(.noticesAdded(Array(notices.suffix(added)))) }
    if let deadline = nextDeadline { effects.append(.tick(atMilliseconds: deadline)) }
    return effects
  }

  // MARK: Directories

  private mutating func ensureDirectory(_ path: FileName) {
    if directories[path] == nil { directories[path] = DirectoryState(path: path) }
  }

  private mutating func removeDirectory(_ path: FileName) {
    guard let directory = directories.removeValue(forKey: path) else { return }
    for mailbox in directory.mailboxes.values {
      historyBytes -= mailbox.history.reduce(0) { $0 + ($1.bytes?.count ?? 0) }
      historyCount -= mailbox.history.count
    }
    pendingChanges.removeAll(directory: path)
    pendingRecords.removeAll(directory: path)
  }

  /// Keeps the directory's last journal sequence number. A gap in the numbers is not guessed at
  /// here: only the journal's reader knows whether it skipped lines, missed a rotation or saw a
  /// writer jump, and the watcher says which in a ``ModelEvent/notice(_:)``.
  private mutating func noticeGap(before record: TrafficRecord, directory: FileName) {
    directories[directory]?.lastJournalSequence = record.sequence
  }

  private mutating func addNotice(_ message: String) {
    guard notices.last != message else { return }
    notices.append(message)
    noticesAdded += 1
    if notices.count > 100 { notices.removeFirst(notices.count - 100) }
  }

  // MARK: Mailboxes

  private mutating func change(
    _ directory: FileName, _ identifier: FileName, _ observation: MailboxObservation, now: Int64,
    initial: Bool
  ) {
    // Taken out while it changes, so that its history array is not copied.
    var mailbox =
      directories[directory]?.mailboxes.removeValue(forKey: identifier) ?? Mailbox(identifier: identifier)
    let wasUnreadable = mailbox.error != nil
    defer {
      directories[directory]?.unreadableCount += (mailbox.error != nil ? 1 : 0) - (wasUnreadable ? 1 : 0)
      directories[directory]?.mailboxes[identifier] = mailbox
    }
    guard
      case .file(let bytes, let size, let modified, let summary, let transfer, let decodeError) = observation
    else {
      if case .unreadable(let message) = observation, mailbox.error != message {
        mailbox.error = message
        mailbox.lastChange = now
      }
      return
    }
    mailbox.error = nil
    if let current = mailbox.current, current.size == size,
      bytes != nil
        ? current.bytes == bytes : (current.bytes == nil && current.modifiedNanoseconds == modified)
    {
      // The same content (touched, or seen again by a rescan): not a new version.
      mailbox.current?.modifiedNanoseconds = modified
      return
    }
    let serial = nextVersionSerial
    nextVersionSerial += 1
    if let old = mailbox.current { pushHistory(old, of: &mailbox, directory: directory) }
    mailbox.current = MailboxVersion(
      serial: serial, bytes: bytes, size: size, modifiedNanoseconds: modified, observedMilliseconds: now,
      summary: summary, decodeError: decodeError)
    mailbox.versionCount += 1
    // What was there before the model started changed when the file did.
    mailbox.lastChange = initial ? modified / 1_000_000 : now
    guard !initial else { return }
    let key = MailboxKey(directory: directory, identifier: identifier)
    let waiting = pendingRecords.items(for: key)
    let window = configuration.matchWindowMilliseconds
    let match: Int?
    if let transfer {
      match = waiting.firstIndex {
        guard case .pass = $0.item.kind else { return false }
        return $0.item.transfer == transfer
      }
    } else {
      match = waiting.lastIndex {
        guard case .pass(let recordSize) = $0.item.kind else { return false }
        return recordSize == size && now - $0.item.milliseconds <= window
      }
    }
    if let index = match {
      let record = waiting[index].item
      mailbox.current?.sender = record.sender
      mailbox.current?.sequence = record.sequence
      linkEntry(record.entry, toVersion: serial)
      // Older waiting passes of this identifier were overwritten before the watcher read them.
      var spent = Set<UInt64>()
      for (position, pending) in waiting.enumerated() where position <= index {
        if case .pass = pending.item.kind { spent.insert(pending.token) }
      }
      pendingRecords.remove(spent, key: key)
    } else {
      pendingChanges.append(
        PendingChange(kind: .written(serial: serial, size: size), milliseconds: now, transfer: transfer),
        key: key,
        deadline: now + (transfer == nil ? window : configuration.transferMatchWindowMilliseconds))
    }
  }

  private mutating func removeMailbox(
    _ directory: FileName, _ identifier: FileName, now: Int64, initial: Bool
  ) {
    guard var mailbox = directories[directory]?.mailboxes.removeValue(forKey: identifier) else { return }
    if mailbox.error != nil { directories[directory]?.unreadableCount -= 1 }
    defer { directories[directory]?.mailboxes[identifier] = mailbox }
    mailbox.error = nil
    guard let old = mailbox.current else { return }
    pushHistory(old, of: &mailbox, directory: directory)
    mailbox.current = nil
    mailbox.lastChange = now
    guard !initial else { return }
    let key = MailboxKey(directory: directory, identifier: identifier)
    if let clear = pendingRecords.items(for: key).first(where: {
      if case .clear = $0.item.kind { return true }
      return false
    }) {
      pendingRecords.remove([clear.token], key: key)
    } else if !pendingRecords.items(for: MailboxKey(directory: directory, identifier: "")).isEmpty {
      // A clear-all explains it, and keeps waiting for the directory's other removals.
    } else {
      pendingChanges.append(
        PendingChange(kind: .removed, milliseconds: now), key: key,
        deadline: now + configuration.matchWindowMilliseconds)
    }
  }

  // MARK: Journal records

  private mutating func receive(
    _ record: TrafficRecord, directory: FileName, now: Int64, initial: Bool, appended: inout [TrafficEntry],
    batch: inout [TrafficEntry]
  ) {
    let kind: TrafficEntryKind
    switch record.kind {
    case .pass: kind = record.replayOf == nil ? .passed : .replayed
    case .notify: kind = .notification
    case .clear: kind = .cleared
    case .clearAll: kind = .clearedAll
    // A kind from a newer writer: shown as stored, with no effect on mailboxes.
    default: kind = TrafficEntryKind(recordKind: record.kind)
    }
    // Journal identifiers are text; a mailbox is the file whose name has exactly those bytes.
    let identifier = FileName(record.identifier)
    var entry = TrafficEntry(
      id: nextTrafficIdentifier, milliseconds: record.milliseconds, kind: kind, directory: directory,
      identifier: identifier, transiting: record.transiting, size: record.bytes, sender: record.sender,
      processIdentifier: record.processIdentifier, sequence: record.sequence, replayOf: record.replayOf,
      error: record.outcome == .ok ? nil : (record.error ?? "failed"), arrivalMilliseconds: now,
      details: record.details)
    // A time ahead of arrival is wrong; one long before it, for a record read as it was written.
    let tolerance = configuration.clockToleranceMilliseconds
    entry.hasDoubtfulTime =
      record.milliseconds > now + tolerance || (!initial && record.milliseconds < now - tolerance)
    nextTrafficIdentifier += 1
    defer {
      // Read at start, records are merged by their time once the batch is complete.
      if initial { batch.append(entry) } else { insertTraffic(entry) }
      appended.append(entry)
    }
    guard record.outcome == .ok else { return }
    // A session record that changed no mailbox (a context removal's clear, too) pairs with nothing.
    guard (record.kind != .pass && record.kind != .clear) || Self.wroteMailbox(record) else { return }
    if initial {
      // Already on disk: name the writer of the current message when the sizes agree.
      if record.kind == .pass, let current = directories[directory]?.mailboxes[identifier]?.current,
        current.size == record.bytes
      {
        directories[directory]?.mailboxes[identifier]?.current?.sender = record.sender
        directories[directory]?.mailboxes[identifier]?.current?.sequence = record.sequence
        entry.versionSerial = current.serial
      }
      return
    }
    let deadline = now + configuration.matchWindowMilliseconds
    let key = MailboxKey(directory: directory, identifier: identifier)
    let pending = PendingRecord(
      kind: .clear, entry: entry.id, sender: record.sender, sequence: record.sequence, milliseconds: now)
    switch record.kind {
    case .pass:
      let changes = pendingChanges.items(for: key)
      let byTransfer = record.transfer.flatMap { transfer in
        changes.first {
          guard case .written = $0.item.kind else { return false }
          return $0.item.transfer == transfer
        }
      }
      if let change = byTransfer
        ?? changes.first(where: {
          guard case .written(_, let size) = $0.item.kind else { return false }
          return size == record.bytes && $0.item.transfer == nil
        }), case .written(let serial, _) = change.item.kind
      {
        pendingChanges.remove([change.token], key: key)
        entry.versionSerial = serial
        setWriter(of: serial, directory: directory, identifier: identifier, record: record)
      } else {
        var waiting = pending
        waiting.kind = .pass(size: record.bytes)
        waiting.transfer = record.transfer
        pendingRecords.append(
          waiting, key: key,
          deadline: record.transfer == nil ? deadline : now + configuration.transferMatchWindowMilliseconds)
      }
    case .clear:
      if let change = pendingChanges.items(for: key).first(where: {
        if case .removed = $0.item.kind { return true }
        return false
      }) {
        pendingChanges.remove([change.token], key: key)
      } else {
        pendingRecords.append(pending, key: key, deadline: deadline)
      }
    case .clearAll:
      for (changeKey, items) in pendingChanges.byKey where changeKey.directory == directory {
        var removals = Set<UInt64>()
        for item in items { if case .removed = item.item.kind { removals.insert(item.token) } }
        pendingChanges.remove(removals, key: changeKey)
      }
      var waiting = pending
      waiting.kind = .clearAll
      pendingRecords.append(
        waiting, key: MailboxKey(directory: directory, identifier: ""), deadline: deadline)
    default:
      break
    }
  }

  /// Whether a pass record wrote a mailbox. Every pass through the library did, except a
  /// simulated device's session records, which only say what the session did: of those, only the
  /// receiver's record of a stored transfer wrote one (see ``TrafficEntry/isIncoming``). A
  /// session-type record without a delivery state is not a device's session record (another
  /// writer's, or one made before the device fields): it is taken as a pass that wrote its mailbox.
  static func wroteMailbox(_ record: TrafficRecord) -> Bool {
    guard record.transiting.hasPrefix("session-"), record.delivery != nil else { return true }
    return record.transiting == TransitingType.sessionFile.rawValue && record.delivery == .delivered
      && TrafficEntry.isIncoming(device: record.device, transfer: record.transfer)
  }

  private mutating func setWriter(
    of serial: UInt64, directory: FileName, identifier: FileName, record: TrafficRecord
  ) {
    guard var mailbox = directories[directory]?.mailboxes[identifier] else { return }
    if mailbox.current?.serial == serial {
      mailbox.current?.sender = record.sender
      mailbox.current?.sequence = record.sequence
    } else if let index = mailbox.history.lastIndex(where: { $0.serial == serial }) {
      mailbox.history[index].sender = record.sender
      mailbox.history[index].sequence = record.sequence
    }
    directories[directory]?.mailboxes[identifier] = mailbox
  }

  private mutating func linkEntry(_ identifier: UInt64, toVersion serial: UInt64) {
    guard let index = trafficIndex(of: identifier) else { return }
    traffic[index].versionSerial = serial
  }

  // MARK: Pairing windows

  private mutating func expire(now: Int64, appended: inout [TrafficEntry]) {
    _ = pendingRecords.expire(now: now)
    for (key, change) in pendingChanges.expire(now: now) {
      var entry = TrafficEntry(
        id: nextTrafficIdentifier, milliseconds: change.milliseconds, kind: .cleared,
        directory: key.directory,
        identifier: key.identifier, size: 0, arrivalMilliseconds: change.milliseconds)
      nextTrafficIdentifier += 1
      if case .written(let serial, let size) = change.kind {
        entry.kind = .changedWithoutRecord
        entry.size = size
        entry.versionSerial = serial
      }
      insertTraffic(entry)
      appended.append(entry)
    }
  }

  // MARK: Bounded memory

  private mutating func pushHistory(_ version: MailboxVersion, of mailbox: inout Mailbox, directory: FileName)
  {
    guard configuration.historyDepth > 0 else { return }
    mailbox.history.append(version)
    historyBytes += version.bytes?.count ?? 0
    historyCount += 1
    historyOrder.append(
      HistoryKey(directory: directory, identifier: mailbox.identifier, serial: version.serial))
    while mailbox.history.count > configuration.historyDepth {
      let dropped = mailbox.history.removeFirst()
      historyBytes -= dropped.bytes?.count ?? 0
      historyCount -= 1
    }
  }

  /// Evicts the oldest history versions, across every mailbox, until the byte budget holds.
  private mutating func evictHistory() {
    while historyBytes > configuration.historyByteBudget && historyOrderStart < historyOrder.count {
      let key = historyOrder[historyOrderStart]
      historyOrderStart += 1
      guard directories[key.directory]?.mailboxes[key.identifier]?.history.first?.serial == key.serial,
        var mailbox = directories[key.directory]?.mailboxes.removeValue(forKey: key.identifier)
      else { continue }
      let dropped = mailbox.history.removeFirst()
      historyBytes -= dropped.bytes?.count ?? 0
      historyCount -= 1
      directories[key.directory]?.mailboxes[key.identifier] = mailbox
    }
    // Keys of versions already gone (depth, clears, vanished directories) pile up: compact the
    // order when they outnumber the live versions.
    let waiting = historyOrder.count - historyOrderStart
    if waiting > 2 * historyCount + 1_024 {
      var live = Set<UInt64>()
      for directory in directories.values {
        for mailbox in directory.mailboxes.values {
          for version in mailbox.history { live.insert(version.serial) }
        }
      }
      historyOrder = historyOrder[historyOrderStart...].filter { live.contains($0.serial) }
      historyOrderStart = 0
    } else if historyOrderStart > 4_096 && historyOrderStart > historyOrder.count / 2 {
      historyOrder.removeFirst(historyOrderStart)
      historyOrderStart = 0
    }
  }

  /// Inserts an entry in the order of arrival (file changes recognized late, when their pairing
  /// window ends, arrived earlier). The time a record claims does not order it: it can lie.
  private mutating func insertTraffic(_ entry: TrafficEntry) {
    var index = traffic.count
    while index > 0 && traffic[index - 1].orderMilliseconds > entry.orderMilliseconds { index -= 1 }
    traffic.insert(entry, at: index)
  }

  /// Merges the records a journal held at start with the traffic already there, by the time each
  /// claims: the history of several directories read one after the other is one time-ordered
  /// list. The batch is in the journal's order, sorted here (stably) by time; the merge is linear.
  /// Live records are not merged so: their order of arrival is the truth (a claimed time can lie).
  private mutating func mergeTraffic(_ batch: [TrafficEntry]) {
    guard !batch.isEmpty else { return }
    let incoming = batch.enumerated().sorted {
      ($0.element.milliseconds, $0.offset) < ($1.element.milliseconds, $1.offset)
    }.map(\.element)
    guard !traffic.isEmpty else {
      traffic = incoming
      return
    }
    var merged: [TrafficEntry] = []
    merged.reserveCapacity(traffic.count + incoming.count)
    var old = 0
    var new = 0
    while old < traffic.count && new < incoming.count {
      // What is there goes first on a tie: it was read first.
      if traffic[old].milliseconds <= incoming[new].milliseconds {
        merged.append(traffic[old])
        old += 1
      } else {
        merged.append(incoming[new])
        new += 1
      }
    }
    merged += traffic[old...]
    merged += incoming[new...]
    traffic = merged
  }

  /// Keeps the newest entries: trims to the capacity once it is exceeded by an eighth, so that
  /// the cost of trimming is spread over many appends.
  private mutating func trimTraffic() {
    let capacity = max(configuration.trafficCapacity, 0)
    guard traffic.count > capacity + max(capacity / 8, 1) else { return }
    let excess = traffic.count - capacity
    traffic.removeFirst(excess)
    droppedTrafficCount += excess
  }
}
