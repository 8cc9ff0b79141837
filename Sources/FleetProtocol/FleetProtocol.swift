/// What the fleet's payloads share: the protocol version they carry as `"version"`.
public enum FleetProtocol {
  /// The version of the bridge info, request and reply payloads this side writes and reads.
  public static let version: Int64 = 1
}
