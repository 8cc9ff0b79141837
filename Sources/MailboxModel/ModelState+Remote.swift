import WormholeVocabulary

/// What the fleet (mailboxes of other machines, as their bridges publish them) needs from the
/// model's types: a mailbox built from what a bridge said of it, and that machine's traffic
/// entries in the one stream the traffic pane shows. Package-only: the model's own reducer
/// stays the one way local mailboxes change.
extension Mailbox {
  /// A mailbox as a bridge described it: its versions seen (current and earlier, oldest first),
  /// how many, when it last changed and why it could not be read.
  package init(
    identifier: FileName, current: MailboxVersion?, history: [MailboxVersion], versionCount: Int,
    lastChange: Int64, error: String?
  ) {
    self.init(identifier: identifier)
    self.current = current
    self.history = history
    self.versionCount = versionCount
    self.lastChange = lastChange
    self.error = error
  }
}

extension ModelState {
  /// Appends entries another machine's bridge reported (``TrafficEntry/details`` names the
  /// machine) at the end of the stream, in the order given: each gets the stream's next
  /// identifier; the stream keeps its capacity. Returns them as appended.
  package mutating func appendRemoteTraffic(_ entries: [TrafficEntry]) -> [TrafficEntry] {
    var appended: [TrafficEntry] = []
    appended.reserveCapacity(entries.count)
    for var entry in entries {
      entry.id = nextTrafficIdentifier
      nextTrafficIdentifier += 1
      // Never linked to a local version: the bytes live on the other machine.
      entry.versionSerial = nil
      appended.append(entry)
    }
    traffic += appended
    let capacity = max(configuration.trafficCapacity, 0)
    if traffic.count > capacity + max(capacity / 8, 1) {
      let excess = traffic.count - capacity
      traffic.removeFirst(excess)
      droppedTrafficCount += excess
    }
    return appended
  }
}
