import Dashboard
import Glibc
import KeyedArchive
import MailboxWatcher
import SimulatorDeviceSet
import WormholeVocabulary

/// `--device-set DIR`, shared by `dump`, the dashboard and `snapshot`: the CoreSimulator device
/// set is read once, its application-group containers become the watched roots, and the
/// dashboard names them by device.
enum DeviceSetArguments {
  static let option = OptionSpec(
    .deviceSet,
    help: "a CoreSimulator device set (the Devices folder of a Mac's ~/Library/Developer/CoreSimulator)")
  static let readWriteOption = OptionSpec(
    .readWrite, help: "with --device-set, allow actions that write (a device set is read-only by default)")

  /// The device set `--device-set` names, read, or `nil` when the option is not given.
  ///
  /// A DIR that does not exist or is not a directory ends the command (exit 2), as does
  /// `--device-set` with another way to choose directories; one that cannot be listed ends it
  /// with exit 3. Whatever is missing or damaged inside the set is a note, never an error.
  static func deviceSet(_ arguments: ParsedArguments) throws(CommandError) -> DeviceSet? {
    guard let directory = arguments.value(.deviceSet) else {
      if arguments.declares(.readWrite) && arguments.flag(.readWrite) {
        throw .usage("--read-write applies to a device set only (--device-set DIR); other roots are writable")
      }
      return nil
    }
    let others: [Option] = [.home, .group, .directory, .container, .pair].filter {
      arguments.declares($0) && arguments.value($0) != nil
    }
    if !arguments.positional.isEmpty || !others.isEmpty {
      let named = arguments.positional.isEmpty ? others.map { "--" + $0.name } : ["ROOT"]
      throw .usage(
        "--device-set chooses the directories itself; it does not combine with "
          + named.joined(separator: ", "))
    }
    if arguments.declares(.readWrite), arguments.declares(.readOnly), arguments.flag(.readWrite),
      arguments.flag(.readOnly)
    {
      throw .usage("--read-only and --read-write contradict each other: give one")
    }
    var status = stat()
    guard stat(directory, &status) == 0 else {
      let reason = String(cString: strerror(errno))
      throw .usage(
        "--device-set: cannot open \(DisplayText.field(directory)): \(reason) (give the Devices folder "
          + "of a Mac's ~/Library/Developer/CoreSimulator, copied or mounted here)")
    }
    guard status.st_mode & S_IFMT == S_IFDIR else {
      throw .usage("--device-set: \(DisplayText.field(directory)) is not a directory (give a Devices folder)")
    }
    let set = DeviceSet.read(at: FileName(directory))
    // The one note a set gets when its own directory cannot be listed.
    if set.devices.isEmpty, let note = set.notes.first(where: { $0.path == set.path }),
      case .unreadable = note.kind
    {
      throw .failure("--device-set: " + note.displayText)
    }
    return set
  }

  /// Whether a dashboard or snapshot on `set` is read-only: always without a set when
  /// `--read-only` is given; with one, unless `--read-write` is.
  static func isReadOnly(_ arguments: ParsedArguments, deviceSet: DeviceSet?) -> Bool {
    if arguments.flag(.readOnly) { return true }
    guard deviceSet != nil else { return false }
    return !(arguments.declares(.readWrite) && arguments.flag(.readWrite))
  }

  /// What the dashboard and `snapshot` watch: the containers of the set `--device-set` names,
  /// else the roots `dump` takes; whether they are read-only (``isReadOnly(_:deviceSet:)``);
  /// and the set's labels, when there is a set.
  static func watched(_ arguments: ParsedArguments) throws(CommandError) -> (
    roots: [WatchRoot], isReadOnly: Bool, deviceSet: DeviceSetLabels?
  ) {
    let deviceSet = try deviceSet(arguments)
    let readOnly = isReadOnly(arguments, deviceSet: deviceSet)
    guard let deviceSet else { return (try DumpVerb.roots(arguments), readOnly, nil) }
    return (roots(deviceSet), readOnly, labels(deviceSet, isReadOnly: readOnly))
  }

  /// The watched roots: each group container and everything below it (the wormhole directory
  /// is the container itself or a subdirectory the app names).
  static func roots(_ set: DeviceSet) -> [WatchRoot] {
    set.groups.map { WatchRoot(path: $0.group.path, kind: .tree) }
  }

  /// What the dashboard shows of `set`: a label per container, the summary, pairs and notes.
  static func labels(_ set: DeviceSet, isReadOnly: Bool) -> DeviceSetLabels {
    let groups = set.groups
    var summary = "device set \(set.path.displayField): \(set.devices.count) device"
    summary += set.devices.count == 1 ? "" : "s"
    summary += ", \(set.pairs.count) pair\(set.pairs.count == 1 ? "" : "s")"
    summary += ", \(groups.count) group\(groups.count == 1 ? "" : "s")"
    summary += isReadOnly ? ", read-only (--read-write allows writes)" : ", writable (--read-write)"
    return DeviceSetLabels(
      path: set.path.lossyText,
      containers: groups.map {
        DeviceSetLabels.Container(path: $0.group.path, label: label($0.device, $0.group, in: set))
      },
      summary: summary, pairs: set.pairs.map(DeviceSet.line), notes: set.notes.map(\.displayText))
  }

  /// A container's name in the tree, not yet escaped: `name · runtime[ · booted][ ⇄ peer[ (inactive)]…] · group`.
  static func label(_ device: SimulatedDevice, _ group: ApplicationGroupContainer, in set: DeviceSet)
    -> String
  {
    var parts = [device.displayName]
    if let runtime = device.runtime { parts.append(runtime.displayName) }
    if device.state?.isBooted == true { parts.append("booted") }
    var label = parts.joined(separator: " · ")
    let peers = set.pairs.compactMap { pair -> String? in
      let isPhone = pair.phone?.directory == device.directory
      let isWatch = pair.watch?.directory == device.directory
      guard isPhone || isWatch, let peerUDID = isPhone ? pair.watchUDID : pair.phoneUDID else { return nil }
      let peer = (isPhone ? pair.watch : pair.phone)?.displayName ?? peerUDID
      return pair.isActive == false ? peer + " (inactive)" : peer
    }
    if !peers.isEmpty { label += " ⇄ " + peers.joined(separator: ", ") }
    return label + " · " + group.identifier
  }
}
