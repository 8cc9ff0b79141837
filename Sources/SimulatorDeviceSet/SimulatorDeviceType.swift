/// A simulated device's hardware type as CoreSimulator names it, with a name for people.
///
/// CoreSimulator identifies device types as `com.apple.CoreSimulator.SimDeviceType.<model>`, the
/// model's name with hyphens for spaces and a doubled hyphen opening a parenthesis that a
/// trailing hyphen closes (`…SimDeviceType.iPhone-15-Pro`,
/// `…SimDeviceType.iPod-touch--7th-generation-`). The readable name undoes that ("iPhone 15 Pro",
/// "iPod touch (7th generation)"); it may differ in detail from the name Xcode shows, which is not
/// in the set. An identifier of another shape is its own readable name.
public struct SimulatorDeviceType: Sendable, Hashable {
  /// The identifier exactly as the device set holds it.
  public var identifier: String

  /// The prefix of every CoreSimulator device-type identifier.
  public static let identifierPrefix = "com.apple.CoreSimulator.SimDeviceType."

  public init(identifier: String) { self.identifier = identifier }

  /// The name for people: "iPhone 15", or the identifier when it is not of the usual shape.
  public var displayName: String {
    guard identifier.hasPrefix(SimulatorDeviceType.identifierPrefix) else { return identifier }
    let model = Array(identifier.dropFirst(SimulatorDeviceType.identifierPrefix.count))
    guard !model.isEmpty else { return identifier }
    var out = ""
    var open = 0
    var index = 0
    while index < model.count {
      let character = model[index]
      let next = index + 1 < model.count ? model[index + 1] : nil
      if character != "-" {
        out.append(character)
      } else if open > 0 && (next == nil || next == "-") {
        out += ")"
        open -= 1
      } else if next == "-" {
        out += " ("
        open += 1
        index += 1
      } else if next != nil {
        out += " "
      }
      index += 1
    }
    return out
  }
}
