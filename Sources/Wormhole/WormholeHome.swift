import Glibc

/// Where wormhole directories live on Linux, which has no app-group containers.
///
/// A *home* directory stands in for the containers: application group `G` lives at
/// `<home>/AppGroup/G/`, and its optional directory below that. The home is the one given, else
/// `$WORMHOLE_HOME`, else `$XDG_DATA_HOME/wormhole`, else `~/.local/share/wormhole`.
public enum WormholeHome {
  /// The home to use when none is given, from `environment`.
  public static func defaultPath(environment: [String: String] = currentEnvironment()) -> String {
    if let home = environment["WORMHOLE_HOME"], !home.isEmpty { return home }
    if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/wormhole" }
    return userHome(environment: environment) + "/.local/share/wormhole"
  }

  /// The wormhole directory of an application group (and optional directory) below `home`.
  public static func directoryPath(
    applicationGroupIdentifier group: String, optionalDirectory: String?, home: String
  ) throws(WormholeError) -> String {
    try validateComponent(group, kind: "application group")
    let path = trimmingTrailingSlashes(home) + "/AppGroup/" + group
    return try directoryPath(container: path, optionalDirectory: optionalDirectory)
  }

  /// The wormhole directory below an existing container (such as a copied simulator app-group
  /// container) and MMWormhole's optional directory; `container` itself when there is none.
  public static func directoryPath(container: String, optionalDirectory: String?) throws(WormholeError)
    -> String
  {
    guard let optionalDirectory, !optionalDirectory.isEmpty else { return trimmingTrailingSlashes(container) }
    let components = optionalDirectory.split(separator: "/", omittingEmptySubsequences: true)
    for component in components { try validateComponent(String(component), kind: "optional directory") }
    return trimmingTrailingSlashes(container) + "/" + components.joined(separator: "/")
  }

  static func validateComponent(_ name: String, kind: String) throws(WormholeError) {
    if name.isEmpty { throw .invalidName(kind: kind, name: name, reason: "it is empty") }
    if name == "." || name == ".." {
      throw .invalidName(kind: kind, name: name, reason: "it would leave the wormhole home")
    }
    if name.utf8.contains(0) {
      throw .invalidName(kind: kind, name: name, reason: "it contains a NUL character")
    }
    if kind == "application group" && name.utf8.contains(UInt8(ascii: "/")) {
      throw .invalidName(kind: kind, name: name, reason: "it contains '/'")
    }
    if name.utf8.count > 255 {
      throw .invalidName(kind: kind, name: name, reason: "it is too long for a file name")
    }
  }

  /// The process environment as a dictionary.
  public static func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
      let text = String(cString: entry)
      if let equals = text.firstIndex(of: "=") {
        result[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      pointer += 1
    }
    return result
  }

  private static func userHome(environment: [String: String]) -> String {
    if let home = environment["HOME"], !home.isEmpty { return home }
    if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
      return String(cString: directory)
    }
    return "/tmp"
  }
}

func trimmingTrailingSlashes(_ path: String) -> String {
  var result = path
  while result.count > 1 && result.hasSuffix("/") { result.removeLast() }
  return result
}
