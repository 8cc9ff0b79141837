import ArchivedValues
import DeviceRouting
import TerminalScreen

/// The device a push or a deep link went to, as its record names it (`desk/phone` for a pair's
/// device, `peer:NAME#xxxx` for a peer), in the traffic pane's devices column.
enum RoutedDevice {
  /// `device` escaped, in at most `width` columns: in full when it fits; a peer otherwise
  /// without `peer:` and cut in the middle, so that its `#xxxx` (which tells peers of one name
  /// apart) stays; `-` without a device.
  static func column(_ device: String?, width: Int?) -> String {
    guard let device else { return "-" }
    let full = DisplayText.field(device)
    guard let width, TerminalWidth.columns(of: full) > width else { return full }
    guard device.hasPrefix(DeviceSelector.peerPrefix) else { return full }
    let label = device.dropFirst(DeviceSelector.peerPrefix.count)
    guard let hash = label.lastIndex(of: "#"), label.distance(from: hash, to: label.endIndex) == 5, width > 6
    else { return Formatting.middleTruncated(DisplayText.field(String(label)), toColumns: width) }
    let digits = String(label[hash...])
    let name = DisplayText.field(String(label[..<hash]))
    return Formatting.middleTruncated(name, toColumns: width - digits.count) + DisplayText.field(digits)
  }
}
