/// A file transfer: queued by its sender until the counterpart stores it, then delivered there.
public struct FileTransfer: Sendable, Equatable {
  /// Unique and increasing per sending device, across its restarts: the receiver uses it to
  /// deliver each transfer once.
  public var id: UInt64
  /// The message identifier: the transfer's metadata is `{"identifier": identifier}`, as
  /// MMWormholeSession sends it.
  public var identifier: String
  /// The archive.
  public var payload: [UInt8]
  /// When it was queued, in nanoseconds since 1970.
  public var time: Int64

  public init(id: UInt64, identifier: String, payload: [UInt8], time: Int64) {
    self.id = id
    self.identifier = identifier
    self.payload = payload
    self.time = time
  }

  /// The metadata WatchConnectivity carries with the file.
  public var metadata: [String: String] { ["identifier": identifier] }
}
