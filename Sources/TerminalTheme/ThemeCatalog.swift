import ShippedThemes

/// Where themes come from: the user's theme directory, whose `NAME.theme` files shadow the
/// shipped themes of the same name, then the themes shipped in the binary.
///
/// `--theme NAME|PATH` resolves through ``load(_:)``: a value with a `/` or ending in `.theme` is
/// a path to a theme file, anything else a name. ``availableNames()`` is the cycle the `t` key walks.
public struct ThemeCatalog: Sendable {
  /// The name of the default theme.
  public static let defaultName = "dark"

  /// The directory of the user's themes, `nil` when there is none to look in.
  public var userDirectory: String?

  public init(userDirectory: String?) {
    self.userDirectory = userDirectory
  }

  /// The catalog of `$XDG_CONFIG_HOME/wormhole-tui/themes` (when that is an absolute path),
  /// else `$HOME/.config/wormhole-tui/themes`.
  public init(environment: [String: String]) {
    if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
      userDirectory = config + "/wormhole-tui/themes"
    } else if let home = environment["HOME"], home.hasPrefix("/") {
      userDirectory = home + "/.config/wormhole-tui/themes"
    } else {
      userDirectory = nil
    }
  }

  /// The shipped default theme (`dark`), parsed from the bytes embedded in the binary.
  public static let shippedDefault: Theme = {
    guard let file = ShippedThemes.files.first else { return .fallback }
    return
      (try? ThemeParser.parse(
        String(decoding: file.bytes, as: UTF8.self), file: file.name + ".theme", defaultName: file.name))
      ?? .fallback
  }()

  /// The names of the shipped themes, the default first.
  public static var shippedNames: [String] { ShippedThemes.files.map(\.name) }

  /// Every theme name available: the shipped ones in their order, then the user's own (those
  /// that do not shadow a shipped one) sorted by their bytes.
  public func availableNames() -> [String] {
    let shipped = Self.shippedNames
    let user = userDirectory.map { ThemeFiles.themeNames(inDirectory: $0) } ?? []
    let extra = user.filter { name in !shipped.contains { $0.utf8.elementsEqual(name.utf8) } }
    return shipped + extra.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
  }

  /// The name after `current` in ``availableNames()``, round to the first: what `t` switches to.
  /// A name not in the list (a path) is followed by the first.
  public func name(after current: String) -> String {
    let names = availableNames()
    guard let index = names.firstIndex(where: { $0.utf8.elementsEqual(current.utf8) }) else {
      return names.first ?? Self.defaultName
    }
    return names[(index + 1) % names.count]
  }

  /// The theme `nameOrPath` names, or the error that kept it from loading.
  public func theme(_ nameOrPath: String) throws(ThemeError) -> Theme {
    if nameOrPath.contains("/") || nameOrPath.hasSuffix(".theme") {
      let text = try ThemeFiles.read(nameOrPath)
      return try ThemeParser.parse(text, file: nameOrPath, defaultName: Self.baseName(of: nameOrPath))
    }
    if let userDirectory, !nameOrPath.isEmpty, !nameOrPath.hasPrefix(".") {
      let path = userDirectory + "/" + nameOrPath + ".theme"
      if let text = try ThemeFiles.readIfPresent(path) {
        return try ThemeParser.parse(text, file: path, defaultName: nameOrPath)
      }
    }
    guard let file = ShippedThemes.files.first(where: { $0.name.utf8.elementsEqual(nameOrPath.utf8) }) else {
      throw .unknownTheme(name: nameOrPath, available: availableNames())
    }
    return try ThemeParser.parse(
      String(decoding: file.bytes, as: UTF8.self), file: file.name + ".theme", defaultName: file.name)
  }

  /// The theme to start with: the one `nameOrPath` names (`--theme`), the default when `nil`.
  ///
  /// A theme that does not load is the error to report, never replaced by the default in
  /// silence: `snapshot` and the dashboard's start end with its message (the file, the line and
  /// what was expected; show it through `DisplayText`) and exit 2.
  public func startingTheme(_ nameOrPath: String?) throws(ThemeError) -> Theme {
    try theme(nameOrPath ?? Self.defaultName)
  }

  /// The theme `nameOrPath` names (the default when `nil`), or the shipped default with the
  /// problem to report when it does not load (show the message through `DisplayText`: it holds
  /// the path and text as given).
  public func load(_ nameOrPath: String?) -> (theme: Theme, problem: ThemeError?) {
    do throws(ThemeError) {
      return (try theme(nameOrPath ?? Self.defaultName), nil)
    } catch {
      return (Self.shippedDefault, error)
    }
  }

  /// The file name of `path` without its directory and `.theme`.
  static func baseName(of path: String) -> String {
    let file = path.split(separator: "/").last.map(String.init) ?? path
    return file.hasSuffix(".theme") ? String(file.dropLast(6)) : file
  }
}
