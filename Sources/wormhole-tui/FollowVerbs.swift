import Dispatch
import Foundation
import Glibc
import KeyedArchive
import MailboxModel
import Synchronization
import Wormhole
import WormholeVocabulary

enum ListenVerb {
  static let verb = Verb(
    name: "listen", synopsis: "IDENTIFIER... [--count N] [--timeout SECONDS] [--json] [OPTIONS]",
    summary: "Print each message passed for the identifiers, one line each, as it is heard.",
    details: """
      Text lines are 'IDENTIFIER: SUMMARY', or 'IDENTIFIER: (notification)' for a pass without a
      message. JSON lines are {"identifier", "kind", "seq", "sender", "message"} (message null
      for a notification). Everything passed after listen started is heard, even before
      'listening for …' goes to standard error (once the listener is ready): 'listen ID &' then
      'pass ID' at once never loses the message. Nothing passed before it started is.
      Rapid passes may coalesce into one line showing the latest message. Exit 1 on timeout
      (without --count, only when nothing was heard: the timeout is then how long to listen);
      exit 3 when the journal cannot be read (a link, FIFO, device or directory in its place) or
      the directory is removed with its parent. A directory removed and created again is
      followed again, with a line on standard error.
      """,
    options: [
      OptionSpec(.count, help: "exit after N messages"),
      OptionSpec(.timeout, help: "exit 1 if the count (without --count: a message) is not heard in time"),
      OptionSpec(.json, help: "print one JSON object per message"),
    ] + PairArguments.deviceOptions,
    run: run)

  /// A test seam: with this variable set, `listen` says `holding before listening` on standard
  /// error and reads a line from standard input before it installs its listeners, so that a
  /// test can pass a message after the process started and before it listens.
  static let holdVariable = "WORMHOLE_TUI_TEST_HOLD_BEFORE_LISTENING"

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    // What was passed from the process's start on is heard (without /proc, from now on).
    let start = ProcessStart.current()
    guard !arguments.positional.isEmpty else {
      throw .usage("listen needs at least one IDENTIFIER (see --help)")
    }
    for identifier in arguments.positional { try validate(identifier) }
    let count = try arguments.integer(.count, minimum: 1)
    let timeout = try arguments.seconds(.timeout)
    let json = arguments.flag(.json)
    let wormhole = try Location.wormhole(arguments, creating: true)
    // Reading the journal is all listening needs: one that cannot be read is reported now.
    if let problem = TrafficJournalReader(directory: wormhole.directory, startingAtEnd: true).problem {
      throw CommandError(problem)
    }
    let done = DispatchSemaphore(value: 0)
    let heard = Mutex(0)
    let stopped = Mutex(false)
    wormhole.observeJournalNotices { notice in
      diagnose(notice.description)
      if case .stopped = notice {
        stopped.withLock { $0 = true }
        done.signal()
      }
    }
    var tokens: [ListenerToken] = []
    // Each identifier once, by its exact bytes: `é` and `e` + U+0301 are two (a Set of String
    // would take them for one).
    var seen = Set<[UInt8]>()
    let identifiers = arguments.positional.filter { seen.insert(Array($0.utf8)).inserted }
    if getenv(holdVariable) != nil {
      diagnose("holding before listening")
      _ = readLine()
    }
    for identifier in identifiers {
      do {
        let listener: @Sendable (ReceivedMessage) -> Void = { heardMessage in
          let received = session(heardMessage, arguments)
          // Lines come out whole and in order: live ones from the listener thread, the
          // catch-up of each identifier from this one, each under the lock.
          let reached = heard.withLock { heard -> Bool in
            if let count, heard >= count { return false }
            heard += 1
            emit(json ? jsonLine(received) : textLine(received))
            if let failure = received.failure { diagnose(failure.description) }
            return heard == count
          }
          if reached { done.signal() }
        }
        if let start {
          tokens.append(
            try wormhole.listenForMessage(withIdentifier: identifier, sinceStartOf: start, listener: listener)
          )
        } else {
          tokens.append(try wormhole.listenForMessage(withIdentifier: identifier, listener: listener))
        }
      } catch {
        throw CommandError(error)
      }
    }
    diagnose(
      "listening for \(arguments.positional.map(DisplayText.field).joined(separator: ", ")) "
        + "in \(DisplayText.field(wormhole.directory))")
    let result = done.wait(timeout: timeout.map { .now() + $0 } ?? .distantFuture)
    for token in tokens { token.cancel() }
    if stopped.withLock({ $0 }) { return .failure }
    if result == .timedOut {
      let heardCount = heard.withLock { $0 }
      // Without --count the timeout is how long to listen: what was heard is a success.
      guard let count else {
        if heardCount > 0 { return .success }
        diagnose("timed out after \(timeout.map { "\($0)" } ?? "?") s without a message")
        return .nothing
      }
      diagnose("timed out after \(heardCount) of \(count) messages")
      return .nothing
    }
    return .success
  }

  /// Whether `received` is a session post the device received that stored nothing in a
  /// mailbox (a session message, a context): the listener rang without a message.
  static func isUnstoredSession(_ received: ReceivedMessage) -> Bool {
    received.record.kind == .pass && received.record.delivery != nil && received.message == nil
      && received.failure == nil && received.archive == nil
  }

  /// A received context's value, read from the device's received context, filled into
  /// `received`; everything else as heard.
  static func session(_ received: ReceivedMessage, _ arguments: ParsedArguments) -> ReceivedMessage {
    guard isUnstoredSession(received), received.record.transitingType == .sessionContext,
      arguments.value(.pair) != nil
    else { return received }
    var filled = received
    do {
      guard let archive = try SessionMailboxes.receivedValue(arguments, identifier: received.identifier)
      else { return received }
      filled.archive = archive
      filled.message = try MessageRendering.inspect(archive, source: received.identifier).root
    } catch {
      diagnose(error.message)
    }
    return filled
  }

  static func textLine(_ received: ReceivedMessage) -> String {
    let label = DisplayText.field(received.identifier)
    if received.isNotificationOnly { return "\(label): (notification)" }
    if isUnstoredSession(received) {
      let peer = received.record.peer.map { " from " + DisplayText.field($0) } ?? ""
      let type = DisplayText.field(received.record.transiting)
      return received.record.transitingType == .sessionMessage
        ? "\(label): (\(type)\(peer): live only, its message is never stored)"
        : "\(label): (\(type)\(peer): no longer in the received context)"
    }
    if received.failure != nil { return "\(label): (unreadable)" }
    guard let message = received.message else { return "\(label): (empty mailbox)" }
    return "\(label): \(message.summary(width: 4096))"
  }

  static func jsonLine(_ received: ReceivedMessage) -> String {
    var line = "{\"identifier\":\(JSONText.string(received.identifier))"
    line += ",\"kind\":\(JSONText.string(received.record.kind.rawValue)),\"seq\":\(received.record.sequence)"
    line += ",\"sender\":\(JSONText.string(received.record.sender))"
    line += ",\"message\":" + (received.message?.json() ?? "null")
    if let failure = received.failure { line += ",\"error\":\(JSONText.string(failure.description))" }
    return line + "}"
  }
}

enum TailVerb {
  static let verb = Verb(
    name: "tail", synopsis: "[--follow] [--count N] [--json] [OPTIONS]",
    summary: "Print the directory's traffic journal, one line per post, oldest first.",
    details: """
      Every retained record is printed unless --count asks for the last N. With --follow, new
      records are printed as they are appended, across journal rotations, until interrupted;
      'following traffic in …' goes to standard error once it follows, and an unused group's
      directory is created to wait for its first post.
      Text columns: seq, time (UTC), pid, sender, transiting, kind, identifier, bytes, outcome,
      each escaped for the terminal (kinds from newer writers too, as they are stored); a
      simulated device's records add 'DEVICE -> PEER' ('DEVICE <- PEER' for what it received)
      and the delivery state (queued, delivered, failed, cancelled).
      JSON lines are the journal's lines as stored (see the README's "Traffic journal"), with
      what a terminal would act on or not draw written as \\uXXXX escapes: they mean the same.
      Exit 3 when the journal cannot be read (a link, FIFO, device, directory or unreadable file
      in its place). While following, a journal truncated or replaced is read from its start and
      a directory removed and created again is followed again, each said on standard error.
      """,
    options: [
      OptionSpec(.follow, help: "keep printing new records"),
      OptionSpec(.count, help: "print only the last N retained records"),
      OptionSpec(.json, help: "print one JSON object per record"),
    ] + PairArguments.deviceOptions,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    guard arguments.positional.isEmpty else { throw .usage("tail takes no arguments (see --help)") }
    let count = try arguments.integer(.count)
    let json = arguments.flag(.json)
    let directory = try Location.directory(arguments)
    // A group nothing was passed in has no traffic yet: listing it prints nothing, and following
    // it creates its directory (as `listen` does) to wait for the first post.
    if try Location.unusedGroupDirectory(arguments) != nil {
      guard arguments.flag(.follow) else { return .success }
      _ = try Location.wormhole(arguments, creating: true)
    }
    let show: @Sendable (TrafficRecord) -> Void = { record in
      // As stored, with what a terminal would act on (or not draw) escaped: it means the same.
      emit(json ? DisplayText.jsonLine(record.jsonLine) : textLine(record))
    }
    // One reader for the retained records and what follows them, so that nothing appended in
    // between is missed or printed twice, whatever the sequence numbers say.
    do {
      try TrafficJournal.checkDirectory(directory)
    } catch {
      throw CommandError(error)
    }
    let reader = TrafficJournalReader(directory: directory, startingAtEnd: false)
    var records = reader.readAvailable()
    if let problem = reader.problem { throw CommandError(problem) }
    if let count { records = Array(records.suffix(count)) }
    records.forEach(show)
    guard arguments.flag(.follow) else { return .success }
    let follower: TrafficJournalFollower
    do {
      follower = try TrafficJournalFollower(
        continuing: reader,
        notices: { notice in
          diagnose(notice.description)
          if case .stopped = notice { exit(ExitCode.failure.rawValue) }
        }
      ) { records in records.forEach(show) }
    } catch {
      throw CommandError(error)
    }
    diagnose("following traffic in \(DisplayText.field(directory))")
    withExtendedLifetime(follower) { dispatchMain() }
  }

  static func textLine(_ record: TrafficRecord) -> String {
    var columns = [
      String(record.sequence), TrafficRecord.timestamp(record.milliseconds), String(record.processIdentifier),
      field(record.sender), field(record.transiting), field(record.kind.rawValue),
      record.identifier.isEmpty ? "-" : field(record.identifier), String(record.bytes),
      field(record.outcome.rawValue),
    ]
    columns += sessionColumns(record.details)
    if let replay = record.replayOf { columns.append("replay-of=\(replay)") }
    if let error = record.error { columns.append(DisplayText.quoted(error)) }
    columns += routeColumns(record.details, kind: record.kind)
    return columns.joined(separator: " ")
  }

  static func field(_ text: String) -> String { DisplayText.field(text) }

  /// A simulated device's columns: `DEVICE -> PEER` (`<-` when the device received what its peer
  /// sent) and the delivery state, each escaped; none for other records.
  static func sessionColumns(_ details: TrafficDetails) -> [String] {
    var columns: [String] = []
    if let device = details.device, details.route != nil, details.peer == nil {
      // A push or a deep link: the device it went to; no peer.
      columns.append(field(device))
    } else if let device = details.device {
      let arrow = TrafficEntry.isIncoming(device: device, transfer: details.transfer) ? "<-" : "->"
      columns += [field(device), arrow, field(details.peer ?? "-")]
    }
    if let delivery = details.delivery { columns.append(field(delivery.rawValue)) }
    return columns
  }

  /// A push's or a deep link's columns, last on the line: `subject="…"` (the notification
  /// identifier or the URL, quoted and escaped) and `route: ` with the route taken in the
  /// device's words (`catcher 0 "promo-.*" (app.routes:4)`, `delegate`, `unhandled`, what was
  /// cut off); none for other records.
  static func routeColumns(_ details: TrafficDetails, kind: TrafficKind) -> [String] {
    guard let route = details.route.flatMap({ TrafficRoute(json: $0, kind: kind) }) else { return [] }
    var columns: [String] = []
    if let subject = route.subject { columns.append("subject=" + DisplayText.quoted(subject)) }
    columns.append("route: " + route.description)
    return columns
  }
}
