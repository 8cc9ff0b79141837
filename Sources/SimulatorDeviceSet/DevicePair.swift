import PropertyList

/// A phone and a watch paired in a device set, as `device_set.plist`'s `DevicePairs` records them.
///
/// `DevicePairs` maps each pair's UUID to a dictionary whose `companion` is the phone's UDID and
/// whose `gizmo` is the watch's; Xcode versions that mark the active pair do so with a boolean
/// `active`. Other keys are ignored.
public struct DevicePair: Sendable, Hashable {
  /// The pair's UUID, its key in `DevicePairs`.
  public var id: String
  /// The phone's UDID (`companion`), or `nil` when the entry lacks one.
  public var phoneUDID: String?
  /// The watch's UDID (`gizmo`), or `nil` when the entry lacks one.
  public var watchUDID: String?
  /// Whether the pair is the active one, or `nil` when the set does not say.
  public var isActive: Bool?
  /// The phone, when the set holds a device of that UDID.
  public var phone: SimulatedDevice?
  /// The watch, when the set holds a device of that UDID.
  public var watch: SimulatedDevice?

  /// The pair in `entry` (one value of `DevicePairs`, under `id`); the problems, as note kinds.
  static func parse(id: String, entry: PropertyListValue) -> (DevicePair, [DeviceSetNote.Kind]) {
    var problems: [DeviceSetNote.Kind] = []
    guard case .dictionary = entry else {
      problems.append(.unexpectedValue(key: "DevicePairs." + id, expected: "a dictionary"))
      return (DevicePair(id: id, phoneUDID: nil, watchUDID: nil), problems)
    }
    func udid(_ key: String) -> String? {
      if case .string(let value)? = entry[key] { return value }
      problems.append(.unexpectedValue(key: "DevicePairs." + id + "." + key, expected: "a string"))
      return nil
    }
    let phone = udid("companion")
    let watch = udid("gizmo")
    var active: Bool?
    switch entry["active"] {
    case .boolean(let value)?: active = value
    case .integer(let value)?: active = value != 0
    default: active = nil
    }
    return (DevicePair(id: id, phoneUDID: phone, watchUDID: watch, isActive: active), problems)
  }
}
