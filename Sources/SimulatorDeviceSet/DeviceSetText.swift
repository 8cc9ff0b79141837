import ArchivedValues
import WormholeVocabulary

extension DeviceSet {
  /// The set as text for a terminal, as `dump --device-set DIR` prints it: a heading, then the
  /// devices (name, type, runtime, state, UDID) each with its groups (identifier and container
  /// path), the pairs, and the notes. Every value from the set is escaped through `DisplayText`
  /// (or `FileName.displayField`), so no name can move the cursor or split a line.
  ///
  /// ```
  /// Device set /Users/ana/Library/Developer/CoreSimulator/Devices: 2 devices, 1 pair, no notes
  /// Devices:
  ///   "Ana's iPhone"  iPhone 15 Pro, iOS 17.2, booted  0F1E…
  ///     group group.com.example.app  /…/0F1E…/data/Containers/Shared/AppGroup/9A8B…
  /// Pairs:
  ///   5D4C… active: phone 0F1E… "Ana's iPhone", watch 7A6B… "Ana's Watch"
  /// ```
  ///
  /// - Parameter groupLines: lines to show under each group (its mailboxes, say), indented
  ///   further by this function. The caller escapes what it puts in them.
  public func text(groupLines: (SimulatedDevice, ApplicationGroupContainer) -> [String] = { _, _ in [] })
    -> String
  {
    var lines = [
      "Device set \(path.displayField): \(count(devices.count, "device")), "
        + "\(count(pairs.count, "pair")), \(count(notes.count, "note"))"
    ]
    if !devices.isEmpty { lines.append("Devices:") }
    for device in devices {
      lines.append("  " + DeviceSet.line(device))
      for group in device.groups {
        lines.append("    group \(DisplayText.field(group.identifier))  \(group.path.displayField)")
        lines += groupLines(device, group).map { "      " + $0 }
      }
    }
    if !pairs.isEmpty { lines.append("Pairs:") }
    for pair in pairs { lines.append("  " + DeviceSet.line(pair)) }
    if !notes.isEmpty { lines.append("Notes:") }
    for note in notes { lines.append("  " + note.displayText) }
    return lines.joined(separator: "\n") + "\n"
  }

  /// One device on one line: name, type, runtime, state and UDID, escaped for a terminal.
  public static func line(_ device: SimulatedDevice) -> String {
    guard device.hasDescription else {
      return "\(DisplayText.field(device.udid))  (no readable device.plist)"
    }
    let type = device.deviceType.map { DisplayText.escaped($0.displayName) } ?? "unknown type"
    let runtime = device.runtime.map { DisplayText.escaped($0.displayName) } ?? "unknown runtime"
    let state = device.state.map(\.name) ?? "unknown state"
    return "\(device.name.map(DisplayText.field) ?? "(no name)")  \(type), \(runtime), \(state)  "
      + DisplayText.field(device.udid)
  }

  /// One pair on one line: id, whether active, and each side's UDID and name (`(absent)` when the
  /// set holds no such device, `(no name)` when its `device.plist` gives none).
  public static func line(_ pair: DevicePair) -> String {
    func side(_ role: String, _ udid: String?, _ device: SimulatedDevice?) -> String {
      guard let udid else { return "\(role) unknown" }
      let shown = DisplayText.field(udid)
      guard let device else { return "\(role) \(shown) (absent)" }
      return "\(role) \(shown) " + (device.name.map(DisplayText.field) ?? "(no name)")
    }
    let marker: String
    switch pair.isActive {
    case true?: marker = " active"
    case false?: marker = " inactive"
    case nil: marker = ""
    }
    return "\(DisplayText.field(pair.id))\(marker): \(side("phone", pair.phoneUDID, pair.phone)), "
      + side("watch", pair.watchUDID, pair.watch)
  }

  private func count(_ number: Int, _ noun: String) -> String {
    switch number {
    case 0: return "no \(noun)s"
    case 1: return "1 \(noun)"
    default: return "\(number) \(noun)s"
    }
  }
}
