import ArchivedValues
import MailboxModel
import WormholeVocabulary

/// Replay: the form for a version or a traffic entry, kept types, and the nearest kept version
/// when the one asked for was evicted.
extension DashboardState {
  /// Opens the replay form for the selected traffic entry or mailbox version, its fields filled
  /// in from `request` where it says.
  mutating func openReplay(_ request: DashboardAction.ReplayRequest) {
    if focus == .traffic {
      guard let id = trafficPane.selection ?? trafficIdentifiers.last, let entry = model.trafficEntry(id)
      else {
        report("replay: no traffic entry to replay", isError: true)
        return
      }
      if entry.isRouted {
        openRouteReplay(entry)
        return
      }
      if entry.carriesMessage, model.version(of: entry) == nil, let transfer = entry.sentTransfer {
        offerReceiversVersion(of: entry, transfer: transfer, request)
        return
      }
      if entry.carriesMessage, model.version(of: entry) == nil {
        offerNearestVersion(instead: entry, request)
        return
      }
      var journaledType: TransitingType?
      var note: String?
      if let journaled = entry.transiting {
        journaledType = TransitingType(rawValue: journaled)
        if journaledType == nil {
          note = "journaled as \(DisplayText.field(journaled)), a type this build does not know: choose one"
        }
      }
      overlay = .replay(
        ReplayForm(
          source: .entry(entry.id),
          title: "Replay \(entry.kind.rawValue) \(entry.identifier.displayField) (traffic entry \(entry.id))",
          note: note, directory: entry.directory,
          identifier: request.identifier ?? entry.identifier.lossyText,
          transiting: request.transiting ?? journaledType, pairs: pairs, directories: treePane.directoryPaths,
          sessionRefusal: entry.carriesMessage
            ? nil : "a \(entry.kind.rawValue) entry carries no message, and a session type sends one"))
      return
    }
    guard case .mailbox(let directory, let identifier)? = selection, let version = versionToReplay else {
      report("replay: select a mailbox version (v for history) or a traffic entry to replay", isError: true)
      return
    }
    overlay = .replay(
      ReplayForm(
        source: .version(directory: directory, identifier: identifier, serial: version.serial),
        title: "Replay the version modified at \(modificationClock(version)) of \(identifier.displayField)",
        directory: directory, identifier: request.identifier ?? identifier.lossyText,
        transiting: request.transiting, pairs: pairs, directories: treePane.directoryPaths))
  }

  /// The entry's own version is gone from the history: offer the nearest kept version of the
  /// same mailbox in the form instead, and say so.
  private mutating func offerNearestVersion(
    instead entry: TrafficEntry, _ request: DashboardAction.ReplayRequest
  ) {
    let depth = model.configuration.historyDepth
    guard let nearest = nearestKeptVersion(entry.directory, entry.identifier, near: entry) else {
      report(
        "replay refused: traffic entry \(entry.id)'s message is no longer kept, and \(entry.identifier.displayField) has no kept version (a mailbox keeps its current version and \(depth) earlier ones)",
        isError: true)
      return
    }
    let gone =
      "traffic entry \(entry.id)'s version is no longer kept (a mailbox keeps \(depth) earlier versions)"
    report(
      "replay: \(gone); offering the nearest kept one, modified at \(modificationClock(nearest))",
      isError: false)
    overlay = .replay(
      ReplayForm(
        source: .version(directory: entry.directory, identifier: entry.identifier, serial: nearest.serial),
        title:
          "Replay the version modified at \(modificationClock(nearest)) of \(entry.identifier.displayField)",
        note: gone + "; this is the nearest kept one", directory: entry.directory,
        identifier: request.identifier ?? entry.identifier.lossyText,
        transiting: request.transiting ?? entry.transiting.flatMap(TransitingType.init(rawValue:)),
        pairs: pairs, directories: treePane.directoryPaths))
  }

  /// The entry is the sender's record of a session transfer, and the sender keeps no copy of
  /// what it sent: the receiver's mailbox version of that transfer (found by its transfer
  /// identifier) is the same message, so the form offers it, sent again from the sender's
  /// directory as before; or the refusal says which copy is gone.
  private mutating func offerReceiversVersion(
    of entry: TrafficEntry, transfer: String, _ request: DashboardAction.ReplayRequest
  ) {
    let sender = Self.roleName(entry.device, otherwise: "sender")
    let receiver = Self.roleName(entry.peer, otherwise: "receiver")
    let stored = model.traffic.last { $0.transfer == transfer && $0.isIncoming && $0.carriesMessage }
    guard let stored, let version = model.version(of: stored) else {
      let why =
        stored == nil
        ? "no record of the \(receiver)'s version of it is kept"
        : "the \(receiver)'s version of it is gone (traffic entry \(stored?.id ?? 0))"
      report(
        "replay refused: the \(sender) keeps no copy of a sent transfer (\(DisplayText.field(transfer))); \(why)",
        isError: true)
      return
    }
    let note = "the \(sender) keeps no copy of a sent transfer: this is the \(receiver)'s version of it"
    report("replay: \(note) (traffic entry \(stored.id))", isError: false)
    overlay = .replay(
      ReplayForm(
        source: .version(directory: stored.directory, identifier: stored.identifier, serial: version.serial),
        title:
          "Replay the \(receiver)'s version of \(stored.identifier.displayField), modified at \(modificationClock(version))",
        note: note, directory: entry.directory, identifier: request.identifier ?? entry.identifier.lossyText,
        transiting: request.transiting ?? entry.transiting.flatMap(TransitingType.init(rawValue:)),
        pairs: pairs, directories: treePane.directoryPaths))
  }

  /// The role part of a `<pair>/<role>` device name, for display.
  private static func roleName(_ device: String?, otherwise: String) -> String {
    guard let device, let slash = device.lastIndex(of: "/") else { return otherwise }
    return DisplayText.field(String(device[device.index(after: slash)...]))
  }

  /// A version's modification time as the replay form shows it.
  func modificationClock(_ version: MailboxVersion) -> String {
    Formatting.clock(version.modifiedNanoseconds / 1_000_000)
  }

  /// The kept version of a mailbox nearest to a traffic entry (by serial when the entry names
  /// its version, by time otherwise), or to a serial.
  func nearestKeptVersion(
    _ directory: FileName, _ identifier: FileName, near entry: TrafficEntry? = nil, serial: UInt64? = nil
  ) -> MailboxVersion? {
    guard let mailbox = model.mailbox(identifier, in: directory) else { return nil }
    let kept = mailbox.history + (mailbox.current.map { [$0] } ?? [])
    if let target = serial ?? entry?.versionSerial {
      return kept.min { distance($0.serial, target) < distance($1.serial, target) }
    }
    guard let time = entry?.milliseconds else { return kept.last }
    return kept.min {
      abs($0.modifiedNanoseconds / 1_000_000 - time) < abs($1.modifiedNanoseconds / 1_000_000 - time)
    }
  }

  private func distance(_ a: UInt64, _ b: UInt64) -> UInt64 { a > b ? a - b : b - a }

  /// "nearest kept: the version modified at …", or that none is kept.
  func nearestKeptVersionAdvice(
    for directory: FileName, _ identifier: FileName, near entry: TrafficEntry? = nil, serial: UInt64? = nil
  ) -> String {
    let depth = model.configuration.historyDepth
    guard let nearest = nearestKeptVersion(directory, identifier, near: entry, serial: serial) else {
      return "\(identifier.displayField) has no kept version (a mailbox keeps \(depth) earlier versions)"
    }
    return
      "nearest kept: version \(nearest.serial), modified at \(modificationClock(nearest)) (r on the traffic entry offers it; a mailbox keeps \(depth) earlier versions)"
  }
}

extension TrafficEntry {
  /// Whether replaying the entry passes a message (which must still be kept).
  var carriesMessage: Bool { kind == .passed || kind == .replayed || kind == .changedWithoutRecord }

  /// The transfer identifier of a sender's record of a session transfer (queued, delivered),
  /// which wrote no mailbox of its own; `nil` for any other entry.
  var sentTransfer: String? {
    guard transiting == TransitingType.sessionFile.rawValue, delivery != nil, !isIncoming else { return nil }
    return transfer
  }
}
