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
enum DeviceSetDump {
  static let option = OptionSpec(
    .deviceSet, help: "print a CoreSimulator device set: devices, pairs, groups with their mailboxes, notes")

  static func run(_ set: DeviceSet, arguments: ParsedArguments) throws(CommandError) -> ExitCode {
    if arguments.flag(.follow) {
      throw .usage(
        "--follow does not combine with --device-set yet; follow one group with "
          + "'dump --follow DIR/<UDID>/data/Containers/Shared/AppGroup/<UUID>'")
    }
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

  /// The models of the group containers of `set`: one for all, read once, or when one
  /// container cannot be watched (which fails the whole watch), one per container that can, the
  /// others being notes of `set`. A wormhole directory that cannot be listed is a note too.
  static func models(of set: inout DeviceSet) -> [ModelState] {
    let roots = DeviceSetArguments.roots(set)
    var states: [ModelState] = []
    if let model = try? LiveModel(roots: roots, configuration: DashboardVerb.modelConfiguration()) {
      states = [model.snapshot]
      model.cancel()
    } else {
      for root in roots {
        do {
          let model = try LiveModel(roots: [root], configuration: DashboardVerb.modelConfiguration())
          states.append(model.snapshot)
          model.cancel()
        } catch {
          set.noteUnreadable(root.path, reason: error.description)
        }
      }
    }
    for state in states {
      for directory in state.sortedDirectories {
        if let error = directory.error {
          set.noteUnreadable(directory.path, reason: error)
        }
      }
    }
    return states
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
