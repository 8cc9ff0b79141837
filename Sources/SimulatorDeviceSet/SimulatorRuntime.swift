/// A simulator runtime as CoreSimulator names it, with a name for people.
///
/// CoreSimulator identifies runtimes as `com.apple.CoreSimulator.SimRuntime.<platform>-<version>`
/// (`…SimRuntime.iOS-17-2`, `…SimRuntime.watchOS-10-2`). The readable name joins the platform and
/// the version's numbers with dots ("iOS 17.2"); anything after the numbers is kept as words
/// ("iOS 18.0 beta"). An identifier of another shape is its own readable name.
public struct SimulatorRuntime: Sendable, Hashable {
  /// The identifier exactly as the device set holds it.
  public var identifier: String
  /// The platform named by the identifier ("iOS", "watchOS", "visionOS"), when it has the usual shape.
  public var platform: String?
  /// The version named by the identifier ("17.2"), when it has one.
  public var version: String?

  /// The prefix of every CoreSimulator runtime identifier.
  public static let identifierPrefix = "com.apple.CoreSimulator.SimRuntime."

  /// Platforms whose identifiers use an older name than the one people know.
  private static let platformNames = ["xrOS": "visionOS"]

  public init(identifier: String) {
    self.identifier = identifier
    guard identifier.hasPrefix(SimulatorRuntime.identifierPrefix) else { return }
    let parts = identifier.dropFirst(SimulatorRuntime.identifierPrefix.count).split(
      separator: "-", omittingEmptySubsequences: true)
    guard let first = parts.first else { return }
    platform = SimulatorRuntime.platformNames[String(first)] ?? String(first)
    let numbers = parts.dropFirst().prefix(while: { $0.allSatisfy(\.isASCIIDigitCharacter) })
    if !numbers.isEmpty { version = numbers.joined(separator: ".") }
    let rest = parts.dropFirst(1 + numbers.count)
    if !rest.isEmpty { qualifier = rest.joined(separator: " ") }
  }

  /// Words after the version ("beta"), if any.
  private var qualifier: String?

  /// The name for people: "iOS 17.2", or the identifier when it is not of the usual shape.
  public var displayName: String {
    guard let platform else { return identifier }
    return [platform, version, qualifier].compactMap { $0 }.joined(separator: " ")
  }

  /// Whether the runtime is one for phones (iOS), judged from its identifier.
  public var isPhonePlatform: Bool { platform == "iOS" }

  /// Whether the runtime is one for watches (watchOS), judged from its identifier.
  public var isWatchPlatform: Bool { platform == "watchOS" }
}

extension Character {
  /// `0` to `9` only (not other scripts' digits, which no identifier uses for a version).
  var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
