import Dispatch
import KeyedArchive
import MailboxModel
import MailboxWatcher
import SimulatorDeviceSet
import TerminalScreen
import Wormhole
import WormholeVocabulary

/// `dump --device-set DIR [--json]`: a CoreSimulator device set (devices, runtimes, states,
/// pairs, group identifiers) with each group's mailboxes, as `dump` shows a wormhole directory's.
///
/// Nothing missing or damaged in the set is a failure: each is a note, printed after the data on
/// standard output (text), or in `notes` (JSON), and the exit status is 0. A group container
/// whose wormhole directory cannot be watched or listed is a note too (kind `unreadable`).
/// `--follow` follows the groups live instead (``follow(_:json:)``).
enum DeviceSetDump {
  static let option = OptionSpec(
    .deviceSet, help: "print a CoreSimulator device set: devices, pairs, groups with their mailboxes, notes")

  static func run(_ set: DeviceSet, arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    if arguments.flag(.follow) { try follow(set, json: arguments.flag(.json)) }
    var set = set
    let states = models(of: &set)
    if arguments.flag(.json) {
      emit(
        set.json { _, group in
          [("mailboxes", "[" + mailboxesJSON(below: group.path, in: states).joined(separator: ",") + "]")]
        })
    } else {
      emitRaw(set.text { _, group in lines(below: group.path, in: states) })
    }
    return .success
  }

  /// `dump --follow --device-set DIR [--json]`: every group container of `set` watched live, each
  /// traffic entry printed as the model recognizes it, its directory named by the label the
  /// dashboard's tree gives it (the device, its runtime, its pairs, the group, and the
  /// subdirectory below the container). JSON lines are `dump --follow --json`'s entries with a
  /// `label` member added. The set's notes, and a container that cannot be watched (noted
  /// too), go to standard error, which says once what is watched; runs until interrupted.
  static func follow(_ set: DeviceSet, json: Bool) throws(CommandError) -> Never {
    var set = set
    let labels = DeviceSetArguments.labels(set, isReadOnly: true)
    let printer: @Sendable (ModelUpdate) -> Void = { update in
      for notice in update.newNotices { diagnose("notice: \(DisplayText.escaped(notice))") }
      for entry in update.newTraffic {
        let label = labels.label(for: entry.directory)
        emit(json ? jsonLine(entry, label: label) : DumpVerb.textLine(entry, directoryLabel: label))
      }
    }
    let watched: LiveModel?
    do throws(WatcherError) { watched = try liveModel(of: &set, onUpdate: printer) } catch {
      throw .failure("\(error.description) (the device set \(set.path.displayField))")
    }
    for note in set.notes { diagnose("note: " + note.displayText) }
    let groupCount = set.groups.count
    guard let model = watched else {
      throw CommandError(
        message: "the device set \(set.path.displayField) holds no group container that can be watched "
          + "(\(groupCount) group\(groupCount == 1 ? "" : "s"))", code: .nothing)
    }
    let count = model.snapshot.directories.count
    diagnose(
      "watching \(count) wormhole director\(count == 1 ? "y" : "ies") in \(groupCount) group"
        + (groupCount == 1 ? "" : "s") + " of the device set \(set.path.displayField)")
    withExtendedLifetime(model) { dispatchMain() }
  }

  /// `dump --follow --json`'s entry with the directory's label (`null` for one outside every
  /// container).
  static func jsonLine(_ entry: TrafficEntry, label: String?) -> String {
    String(entry.jsonLine.dropLast()) + ",\"label\":\(JSONText.string(orNull: label))}"
  }

  /// A live model of the group containers of `set`: of all of them, or when one cannot be
  /// watched (which fails the whole watch), of each that can on its own, the others being notes
  /// of `set`; `nil` when none can be.
  static func liveModel(of set: inout DeviceSet, onUpdate: (@Sendable (ModelUpdate) -> Void)? = nil)
    throws(WatcherError) -> LiveModel?
  {
    let roots = DeviceSetArguments.roots(set)
    guard !roots.isEmpty else { return nil }
    let configuration = DashboardVerb.modelConfiguration()
    var model = try? LiveModel(roots: roots, configuration: configuration, onUpdate: onUpdate)
    if model == nil {
      let watchable = roots.filter { root in
        do throws(WatcherError) {
          try LiveModel(roots: [root], configuration: configuration).cancel()
          return true
        } catch {
          set.noteUnreadable(root.path, reason: error.description)
          return false
        }
      }
      guard !watchable.isEmpty else { return nil }
      model = try LiveModel(roots: watchable, configuration: configuration, onUpdate: onUpdate)
    }
    return model
  }

  /// The model of the group containers of `set`, read once (``liveModel(of:onUpdate:)``): none
  /// when no container can be watched. A wormhole directory that cannot be listed is a note too.
  static func models(of set: inout DeviceSet) -> [ModelState] {
    guard let model = (try? liveModel(of: &set)) ?? nil else { return [] }
    let state = model.snapshot
    model.cancel()
    for directory in state.sortedDirectories {
      if let error = directory.error { set.noteUnreadable(directory.path, reason: error) }
    }
    return [state]
  }

  /// The wormhole directories at or below the container `path`, sorted by path, each with the
  /// model it is in.
  static func directories(below path: FileName, in states: [ModelState]) -> [(ModelState, DirectoryState)] {
    let prefix = path.bytes + [UInt8(ascii: "/")]
    return states.flatMap { state in
      state.sortedDirectories.filter { $0.path == path || $0.path.bytes.starts(with: prefix) }.map {
        (state, $0)
      }
    }.sorted { $0.1.path < $1.1.path }
  }

  /// The lines under a group in the text: per wormhole directory, its path below the container
  /// (`.` for the container itself) and counts, then its mailboxes as `dump` prints them.
  static func lines(below path: FileName, in states: [ModelState]) -> [String] {
    let found = directories(below: path, in: states)
    guard !found.isEmpty else { return ["no mailboxes"] }
    var lines: [String] = []
    for (_, directory) in found {
      let relative =
        directory.path == path
        ? "." : FileName(bytes: directory.path.bytes.dropFirst(path.byteCount + 1)).displayField
      let count = directory.presentCount
      var heading = "\(relative) (\(count) \(count == 1 ? "mailbox" : "mailboxes")"
      if directory.unreadableCount > 0 { heading += ", \(directory.unreadableCount) unreadable" }
      if directory.isPolled { heading += ", polled" }
      if let error = directory.error { heading += ", \(DisplayText.escaped(error))" }
      lines.append(heading + ")")
      for mailbox in directory.sortedMailboxes { lines.append("  " + DumpVerb.row(mailbox)) }
    }
    return lines
  }

  /// A group's `mailboxes` in JSON: `dump --json`'s mailbox objects, each led by the wormhole
  /// directory holding it (`directory`, `directory_bytes`), sorted by directory and identifier.
  static func mailboxesJSON(below path: FileName, in states: [ModelState]) -> [String] {
    directories(below: path, in: states).flatMap { state, directory in
      directory.sortedMailboxes.map { mailbox in
        "{\"directory\":\(JSONText.name(directory.path)),\"directory_bytes\":\(JSONText.nameBytes(directory.path)),"
          + state.mailboxJSON(mailbox, width: 200).dropFirst()
      }
    }
  }
}
