import WormholeVocabulary

/// One application-group container of a simulated device:
/// `<UDID>/data/Containers/Shared/AppGroup/<container UUID>/`.
///
/// The container's directory name is a UUID that says nothing; its group identifier comes from
/// the container manager's metadata file inside it
/// (`.com.apple.mobile_container_manager.metadata.plist`, key `MCMMetadataIdentifier`).
/// MMWormhole's default wormhole directory is this container itself or a subdirectory of it that
/// the app names: the caller looks for `*.archive` mailboxes below ``path``.
public struct ApplicationGroupContainer: Sendable, Hashable {
  /// The application group identifier (`group.com.example.app`), exactly as the metadata holds it.
  public var identifier: String
  /// The container directory, with the set's path in front.
  public var path: FileName

  /// The name of the container manager's metadata file in every container.
  public static let metadataFileName: FileName = ".com.apple.mobile_container_manager.metadata.plist"

  /// The key of the metadata that holds the group identifier.
  public static let identifierKey = "MCMMetadataIdentifier"

  /// The directories from a device's directory to its application-group containers.
  public static let containersPath: [FileName] = ["data", "Containers", "Shared", "AppGroup"]

  public init(identifier: String, path: FileName) {
    self.identifier = identifier
    self.path = path
  }
}
