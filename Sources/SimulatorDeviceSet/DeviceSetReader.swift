import PropertyList
import WormholeVocabulary

/// Walks one device set: lists its directories through ``DeviceSetDirectory``, hands the bytes of
/// each property list to the parsers, and turns every failure into a note.
struct DeviceSetReader {
  let root: FileName
  let limits: DeviceSetLimits
  private var notes: [DeviceSetNote] = []
  /// What is left of the set-wide budgets, and whether running out of each was noted.
  private var remainingEntries: Int
  private var remainingBytes: Int
  private var notedEntryBudget = false
  private var notedByteBudget = false

  init(root: FileName, limits: DeviceSetLimits) {
    self.root = root
    self.limits = limits
    remainingEntries = limits.maximumTotalEntries
    remainingBytes = limits.maximumTotalBytes
  }

  mutating func read() -> DeviceSet {
    var set = DeviceSet(path: root)
    let directory: DeviceSetDirectory
    switch DeviceSetDirectory.open(root) {
    case .success(let opened): directory = opened
    case .failure(let failure):
      note(root, .unreadable(reason: "the device set directory: " + failure.reason))
      set.notes = notes
      return set
    }
    if let properties = propertyList(
      in: directory, DeviceSet.pairsFileName, at: root, missing: .missingDeviceSetPlist)
    {
      readPairs(properties, into: &set)
    }
    for entry in entries(of: directory, at: root) {
      // Hidden entries (`.default_created.plist`, `.DS_Store`) are not devices.
      if entry.name.bytes.first == UInt8(ascii: ".") { continue }
      let path = root.appending(entry.name)
      switch entry.kind {
      case .directory: set.devices.append(readDevice(entry.name, in: directory, at: path))
      case .symbolicLink: note(path, .symbolicLink)
      case .regularFile, .other: continue
      }
    }
    // Named devices first, by name as people sort it (without regard to case), then the rest by UDID.
    set.devices.sort { first, second in
      let one = (first.name == nil ? 1 : 0, (first.name ?? "").lowercased(), first.directory)
      let other = (second.name == nil ? 1 : 0, (second.name ?? "").lowercased(), second.directory)
      return one < other
    }
    resolvePairs(&set)
    set.notes = notes
    return set
  }

  // MARK: device_set.plist

  private mutating func readPairs(_ properties: PropertyListValue, into set: inout DeviceSet) {
    let path = root.appending(DeviceSet.pairsFileName)
    guard case .dictionary = properties else {
      note(path, .unexpectedValue(key: "the top value", expected: "a dictionary"))
      return
    }
    switch properties["DevicePairs"] {
    case .dictionary(let entries)?:
      for entry in entries {
        let (pair, problems) = DevicePair.parse(id: entry.key, entry: entry.value)
        set.pairs.append(pair)
        for problem in problems { note(path, problem) }
      }
    case nil: break  // A set whose devices were never paired.
    case _?: note(path, .unexpectedValue(key: "DevicePairs", expected: "a dictionary"))
    }
    set.pairs.sort { $0.id < $1.id }
    if case .dictionary(let runtimes)? = properties["DefaultDevices"] {
      for runtime in runtimes {
        // Other values (`version`) are not runtimes.
        guard case .dictionary(let types) = runtime.value else { continue }
        for type in types {
          guard case .string(let udid) = type.value else { continue }
          set.defaultDevices.append(
            DefaultDevice(
              runtime: SimulatorRuntime(identifier: runtime.key),
              deviceType: SimulatorDeviceType(identifier: type.key), udid: udid))
        }
      }
      set.defaultDevices.sort {
        ($0.runtime.identifier, $0.deviceType.identifier) < ($1.runtime.identifier, $1.deviceType.identifier)
      }
    }
  }

  private mutating func resolvePairs(_ set: inout DeviceSet) {
    let path = root.appending(DeviceSet.pairsFileName)
    for index in set.pairs.indices {
      let pair = set.pairs[index]
      if let udid = pair.phoneUDID {
        set.pairs[index].phone = pairedDevice(
          udid, role: "phone", of: pair, in: set, at: path, expecting: \.isPhonePlatform)
      }
      if let udid = pair.watchUDID {
        set.pairs[index].watch = pairedDevice(
          udid, role: "watch", of: pair, in: set, at: path, expecting: \.isWatchPlatform)
      }
    }
  }

  /// The device `udid` names in `set`, as `role` of `pair`: noted when the set does not hold it,
  /// or when its runtime is of a known platform other than the role's.
  private mutating func pairedDevice(
    _ udid: String, role: String, of pair: DevicePair, in set: DeviceSet, at path: FileName,
    expecting isRolePlatform: (SimulatorRuntime) -> Bool
  ) -> SimulatedDevice? {
    guard let device = set.device(udid: udid) else {
      note(path, .absentPairedDevice(pair: pair.id, role: role, udid: udid))
      return nil
    }
    if let runtime = device.runtime, runtime.platform != nil, !isRolePlatform(runtime) {
      note(path, .unexpectedPairedPlatform(pair: pair.id, role: role, runtime: runtime.displayName))
    }
    return device
  }

  // MARK: devices

  private mutating func readDevice(_ name: FileName, in parent: DeviceSetDirectory, at path: FileName)
    -> SimulatedDevice
  {
    if !name.isText { note(path, .nameNotText) }
    var device = SimulatedDevice(udid: name.lossyText, directory: path)
    let directory: DeviceSetDirectory
    switch parent.subdirectory(name) {
    case .success(let opened): directory = opened
    case .failure(let failure):
      note(path, .unreadable(reason: failure.reason))
      return device
    }
    if let root = propertyList(
      in: directory, SimulatedDevice.descriptionFileName, at: path, missing: .missingDevicePlist)
    {
      let descriptionPath = path.appending(SimulatedDevice.descriptionFileName)
      for problem in device.describe(with: root) { note(descriptionPath, problem) }
    }
    device.groups = readGroups(of: directory, at: path)
    return device
  }

  private mutating func readGroups(of device: DeviceSetDirectory, at devicePath: FileName)
    -> [ApplicationGroupContainer]
  {
    var directory = device
    var path = devicePath
    for component in ApplicationGroupContainer.containersPath {
      path = path.appending(component)
      switch directory.subdirectory(component) {
      case .success(let opened): directory = opened
      // A device that never booted, or has no groups, has none of these.
      case .failure(.missing): return []
      case .failure(.symbolicLink): note(path, .symbolicLink); return []
      case .failure(let failure): note(path, .unreadable(reason: failure.reason)); return []
      }
    }
    var groups: [ApplicationGroupContainer] = []
    for entry in entries(of: directory, at: path) {
      let containerPath = path.appending(entry.name)
      switch entry.kind {
      case .directory: break
      case .symbolicLink: note(containerPath, .symbolicLink); continue
      case .regularFile, .other: continue
      }
      let container: DeviceSetDirectory
      switch directory.subdirectory(entry.name) {
      case .success(let opened): container = opened
      case .failure(let failure): note(containerPath, failureNote(failure)); continue
      }
      guard
        let metadata = propertyList(
          in: container, ApplicationGroupContainer.metadataFileName, at: containerPath,
          missing: .missingContainerMetadata)
      else { continue }
      guard case .string(let identifier)? = metadata[ApplicationGroupContainer.identifierKey] else {
        note(
          containerPath.appending(ApplicationGroupContainer.metadataFileName),
          .unexpectedValue(key: ApplicationGroupContainer.identifierKey, expected: "a string"))
        continue
      }
      groups.append(ApplicationGroupContainer(identifier: identifier, path: containerPath))
    }
    return groups.sorted { ($0.identifier, $0.path) < ($1.identifier, $1.path) }
  }

  // MARK: files

  /// The entries of `directory`, sorted by name; listing failures and truncation are notes.
  private mutating func entries(of directory: DeviceSetDirectory, at path: FileName) -> [DeviceSetDirectory
    .Entry]
  {
    let allowed = min(limits.maximumEntries, remainingEntries)
    switch directory.entries(limit: allowed) {
    case .success(let listing):
      remainingEntries -= listing.entries.count
      if listing.truncated {
        if allowed < limits.maximumEntries {
          if !notedEntryBudget { note(path, .tooManyEntriesInAll(limit: limits.maximumTotalEntries)) }
          notedEntryBudget = true
        } else {
          note(path, .tooManyEntries(limit: limits.maximumEntries))
        }
      }
      return listing.entries.sorted { $0.name < $1.name }
    case .failure(let failure):
      note(path, .unreadable(reason: failure.reason))
      return []
    }
  }

  /// The top value of the property list `name` in `directory` (whose path is `path`), or `nil`
  /// with a note: `missing` when there is no such file, another kind for every other failure.
  private mutating func propertyList(
    in directory: DeviceSetDirectory, _ name: FileName, at path: FileName, missing: DeviceSetNote.Kind
  ) -> PropertyListValue? {
    let filePath = path.appending(name)
    let allowed = min(limits.maximumFileSize, remainingBytes)
    switch directory.readFile(name, limit: allowed) {
    case .success(let bytes):
      remainingBytes -= bytes.count
      do {
        return try PropertyListReader().read(bytes).root
      } catch {
        note(filePath, .damagedPropertyList(reason: error.description))
        return nil
      }
    case .failure(.missing):
      note(filePath, missing)
      return nil
    case .failure(.tooLarge(let size))
    where allowed < limits.maximumFileSize && size <= limits.maximumFileSize:
      if !notedByteBudget { note(filePath, .tooManyBytesInAll(limit: limits.maximumTotalBytes)) }
      notedByteBudget = true
      return nil
    case .failure(let failure):
      note(filePath, failureNote(failure))
      return nil
    }
  }

  private func failureNote(_ failure: DeviceSetDirectory.Failure) -> DeviceSetNote.Kind {
    switch failure {
    case .symbolicLink: return .symbolicLink
    case .tooLarge(let size): return .fileTooLarge(size: size, limit: limits.maximumFileSize)
    default: return .unreadable(reason: failure.reason)
    }
  }

  private mutating func note(_ path: FileName, _ kind: DeviceSetNote.Kind) {
    notes.append(DeviceSetNote(path: path, kind: kind))
  }
}
