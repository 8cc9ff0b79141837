import WormholeVocabulary

/// Where a directory lies among a pair's devices: `<home>/pairs/<pair>/<role>/AppGroup/<group>/<optional>`.
struct DevicePlace: Equatable {
  var home: String
  var pair: String
  var role: PairSnapshot.Role
  var applicationGroup: String
  var optionalDirectory: String?

  /// The place of `directory`, or `nil` when it is not inside a device's group.
  init?(_ directory: FileName) {
    guard let path = directory.string else { return nil }
    let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    // The last `pairs/<pair>/<role>/AppGroup/<group>` in the path: a home may itself lie
    // under a directory named `pairs`.
    guard
      let index = parts.indices.last(where: { index in
        index + 4 < parts.count && parts[index] == "pairs" && !parts[index + 1].isEmpty
          && PairSnapshot.Role(rawValue: parts[index + 2]) != nil && parts[index + 3] == "AppGroup"
          && !parts[index + 4].isEmpty
      }), let role = PairSnapshot.Role(rawValue: parts[index + 2])
    else { return nil }
    let home = parts[..<index].joined(separator: "/")
    self.home = home.isEmpty && path.hasPrefix("/") ? "/" : home
    pair = parts[index + 1]
    self.role = role
    applicationGroup = parts[index + 4]
    let rest = parts[(index + 5)...].filter { !$0.isEmpty }
    optionalDirectory = rest.isEmpty ? nil : rest.joined(separator: "/")
  }
}
