/// A note about an archive that did not stop it from being shown.
///
/// Text from the file in ``message`` (class names, the archiver's name) is already escaped with
/// ``DisplayText``, so a warning can go to a terminal as it is.
public struct InspectionWarning: Sendable, Hashable, CustomStringConvertible {
  /// What kind of deviation from Apple's `NSKeyedArchiver` output the note is about.
  public enum Kind: String, Sendable, Hashable {
    /// There is no `$archiver` key.
    case missingArchiver
    /// `$archiver` is not a string.
    case invalidArchiver
    /// `$archiver` names another keyed archiver (SceneKit's `SCNKeyedArchiver`, for example).
    case otherArchiver
    /// `$archiver` names an archiver that does not write keyed archives (`NSArchiver`, whose
    /// format is the old sequential one): the file only looks like a keyed archive.
    case notKeyedArchiver
    /// There is no `$version` key.
    case missingVersion
    /// `$version` is not an integer.
    case invalidVersion
    /// `$version` is not 100000, the only version Apple's archiver writes.
    case unknownVersion
    /// `$top` has no `root` key.
    case topWithoutRoot
    /// The archive's top dictionary has a key Apple's archiver does not write.
    case unknownHeaderKey
    /// A class description lacks `$classes` or has a key Apple's archiver does not write (such
    /// as `$classes` spelled otherwise).
    case classDescription
    /// An object in `$objects` is a dictionary without `$class`, which `NSKeyedArchiver` never
    /// writes (it archives dictionaries as `NSDictionary` objects); shown as a plain dictionary.
    case dictionaryWithoutClass
    /// A Foundation class with a layout the inspector does not interpret.
    case uninterpretedLayout
    /// A string holds UTF-16 surrogates that are not paired (as an `NSString` cut inside an emoji
    /// does), shown as U+FFFD; Apple's reader keeps them, so the archive is still well formed.
    case unpairedSurrogate
  }

  public var kind: Kind
  /// The `$objects` index the note is about, when there is one.
  public var object: Int?
  public var message: String

  public init(_ kind: Kind, object: Int?, message: String) {
    self.kind = kind
    self.object = object
    self.message = message
  }

  /// `kind: object N: message`.
  public var description: String {
    guard let object else { return "\(kind.rawValue): \(message)" }
    return "\(kind.rawValue): object \(object): \(message)"
  }
}
