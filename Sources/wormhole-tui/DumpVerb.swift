import Dispatch
import Glibc
import KeyedArchive
import MailboxModel
import MailboxWatcher
import TerminalScreen
import Wormhole
import WormholeVocabulary

enum DumpVerb {
  static let verb = Verb(
    name: "dump", synopsis: "[--json] [--follow] [--traffic N] [ROOT...] [OPTIONS]",
    summary:
      "Print the live mailbox model: directories, mailboxes, recent traffic; --follow keeps printing traffic.",
    details: """
      Wormhole directories (holding *.archive mailboxes or a traffic journal) are found below each
      ROOT, below --group's directory, or below the wormhole home when nothing else is given;
      --container DIR adds DIR itself. Mailbox rows: identifier, size, versions seen, last change,
      last writer (when the journal named one), summary; or 'cleared', or 'unreadable' with the
      reason. A directory that cannot be listed is shown with its error, named on standard error,
      and makes the exit status 3. With --follow, each traffic entry is printed as the model
      recognizes it, one line each, until interrupted ('watching …' and each notice go to
      standard error): passed, notification, changed-without-record (a writer that left no
      journal record, such as cp), cleared, cleared-all, replayed.
      A message that is not the archive it was meant to be (a damaged archive, shown as its
      property list, or bytes that are not a property list) says why after its summary
      ('decode error: …'; "decode_error" in JSON).
      --json prints one JSON document, or with --follow one JSON object per entry (see the
      MailboxModel README section for both layouts).
      --device-set DIR prints a CoreSimulator device set with its groups' mailboxes; with
      --follow it follows every group, each line naming its directory by device and group
      (JSON: a "label" member beside "directory"), the set's notes on standard error.
      With --broker URL it prints instead the machines bridged to that broker ('wormhole-tui
      bridge'): each with its presence and its mailboxes, from the retained messages collected
      for about a second (longer while they keep arriving, at most ten).
      """,
    options: [
      OptionSpec(.json, help: "print JSON"),
      OptionSpec(.follow, help: "keep running and print each new traffic entry"),
      OptionSpec(.traffic, help: "recent traffic entries in the dump (default 20)"),
      DeviceSetDump.option,
      OptionSpec(
        .broker, help: "print the fleet bridged to this MQTT broker (\(Option.brokerAddressHelp)) instead"),
    ] + PairArguments.deviceOptions,
    run: run)

  static func run(_ arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    if let broker = arguments.value(.broker) {
      return try FleetDump.run(broker: broker, json: arguments.flag(.json))
    }
    if let set = try DeviceSetArguments.deviceSet(arguments) {
      return try DeviceSetDump.run(set, arguments: arguments)
    }
    let json = arguments.flag(.json)
    let follow = arguments.flag(.follow)
    let trafficLimit = try arguments.integer(.traffic) ?? 20
    let roots = try roots(arguments)
    var printer: (@Sendable (ModelUpdate) -> Void)?
    if follow {
      // Updates arrive on the model's one queue, so lines come out whole and in order.
      printer = { update in
        // Notices go to standard error as they come, so that the traffic stream stays clean.
        for notice in update.newNotices { diagnose("notice: \(DisplayText.escaped(notice))") }
        for entry in update.newTraffic { emit(json ? entry.jsonLine : textLine(entry)) }
      }
    }
    let model: LiveModel
    do {
      model = try LiveModel(roots: roots, onUpdate: printer)
    } catch {
      throw .failure("\(error.description) (name an existing ROOT, or use --home, --group or --container)")
    }
    guard follow else {
      let state = model.snapshot
      model.cancel()
      if json {
        emit(state.json(trafficLimit: trafficLimit))
      } else {
        emitRaw(text(state, trafficLimit: trafficLimit))
      }
      // A directory that could not be read is a failure, after everything else was printed.
      let unreadable = state.sortedDirectories.filter { $0.error != nil }
      for directory in unreadable {
        diagnose("\(directory.path.displayField): \(DisplayText.escaped(directory.error ?? ""))")
      }
      return unreadable.isEmpty ? .success : .failure
    }
    let count = model.snapshot.directories.count
    diagnose(
      "watching \(count) wormhole director\(count == 1 ? "y" : "ies") below "
        + roots.map(\.path.displayField).joined(separator: ", ")
    )
    withExtendedLifetime(model) { dispatchMain() }
  }

  /// The roots the arguments name: positional ROOTs and --container, else the group, else the home.
  static func roots(_ arguments: ParsedArguments) throws(CommandError) -> [WatchRoot] {
    var roots = arguments.positional.map { WatchRoot(path: $0, kind: .tree) }
    if let container = arguments.value(.container) {
      if arguments.value(.group) != nil || arguments.value(.directory) != nil {
        throw .usage(
          "--container names the wormhole directory itself; it does not combine with --group or --directory")
      }
      roots.append(.container(container))
    } else if arguments.value(.group) != nil || arguments.value(.directory) != nil {
      roots.append(.group(try Location.directory(arguments)))
    }
    if roots.isEmpty {
      roots.append(
        .home(try PairArguments.deviceHome(arguments) ?? arguments.value(.home) ?? WormholeHome.defaultPath())
      )
    }
    return roots
  }

  /// The dump as text: one block per directory, then the recent traffic.
  static func text(_ state: ModelState, trafficLimit: Int) -> String {
    var out = ""
    for directory in state.sortedDirectories {
      let count = directory.presentCount
      var heading = "\(directory.path.displayField) (\(count) \(count == 1 ? "mailbox" : "mailboxes")"
      if directory.unreadableCount > 0 { heading += ", \(directory.unreadableCount) unreadable" }
      if directory.isPolled { heading += ", polled" }
      if let error = directory.error { heading += ", \(DisplayText.escaped(error))" }
      out += heading + ")\n"
      for mailbox in directory.sortedMailboxes { out += "  " + row(mailbox) + "\n" }
    }
    for notice in state.notices { out += "notice: \(DisplayText.escaped(notice))\n" }
    let recent = state.traffic.suffix(max(trafficLimit, 0))
    if !recent.isEmpty {
      out += "traffic (last \(recent.count)):\n"
      for entry in recent { out += "  " + textLine(entry) + "\n" }
    }
    return out
  }

  /// One mailbox: identifier, size, versions, last change, last writer, summary, and why the
  /// message is not shown as the archive it was meant to be (`decode error: …`); or `cleared`,
  /// or `unreadable`; then why the file could not be read (`error: …`). Everything escaped.
  static func row(_ mailbox: Mailbox) -> String {
    var columns = [mailbox.identifier.displayField]
    if let current = mailbox.current {
      columns += [
        "\(current.size)B", "v\(mailbox.versionCount)", TrafficRecord.timestamp(mailbox.lastChange),
        TailVerb.field(current.sender ?? "-"), TerminalWidth.truncated(current.summary, toColumns: 60),
      ]
      if let reason = current.decodeError { columns.append("decode error: \(DisplayText.escaped(reason))") }
    } else {
      columns += [
        mailbox.error != nil ? "unreadable" : "cleared", "v\(mailbox.versionCount)",
        TrafficRecord.timestamp(mailbox.lastChange),
      ]
    }
    if let error = mailbox.error { columns.append("error: \(DisplayText.escaped(error))") }
    return columns.joined(separator: " ")
  }

  /// One traffic entry: time, kind, directory (or `directoryLabel`, such as a device set's label
  /// for it, not yet escaped), identifier, bytes, sender, then seq, replay and error.
  static func textLine(_ entry: TrafficEntry, directoryLabel: String? = nil) -> String {
    var columns = [
      TrafficRecord.timestamp(entry.milliseconds), TailVerb.field(entry.kind.rawValue),
      directoryLabel.map(DisplayText.field) ?? entry.directory.displayField,
      entry.identifier.byteCount == 0 ? "-" : entry.identifier.displayField, String(entry.size),
      TailVerb.field(entry.sender ?? "-"),
    ]
    columns += TailVerb.sessionColumns(entry.details)
    if let sequence = entry.sequence { columns.append("seq=\(sequence)") }
    if let replayOf = entry.replayOf { columns.append("replay-of=\(replayOf)") }
    if let error = entry.error { columns.append(DisplayText.quoted(error)) }
    columns += TailVerb.routeColumns(entry.details, kind: TrafficKind(rawValue: entry.kind.rawValue))
    return columns.joined(separator: " ")
  }
}
