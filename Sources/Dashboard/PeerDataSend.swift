import ArchivedValues

/// Data an operator sends from a running peer (``DashboardEffect/peerSend(_:)``): sent to the
/// sending peer's control socket as `send TO[,TO...] reliable|unreliable DATA`, as `peer send` does.
/// `:peer-send TO MODE @FILE` sends a file's bytes, as `peer send … @FILE` does: the runtime reads
/// the file when it sends (a regular file of at most ``maximumFileBytes``), never the reducer.
public struct PeerDataSend: Sendable, Hashable {
  /// The sending peer's control socket.
  public var controlSocketPath: String
  /// The sending peer, `NAME#xxxx` (for messages).
  public var peer: String
  /// The connected peers it goes to, as typed (`NAME` or `NAME#xxxx`, `,`-separated).
  public var targets: String
  /// `reliable` or `unreliable`.
  public var mode: String
  /// The data's bytes (the text typed, in UTF-8); empty when ``file`` is set.
  public var data: [UInt8]
  /// The file whose bytes are sent instead (`@FILE`, as typed without the `@`), if any.
  public var file: String?

  /// The largest file sent, as `peer send @FILE` allows (a peer's data is at most 16 MiB).
  public static let maximumFileBytes = 16 << 20

  public init(
    controlSocketPath: String, peer: String, targets: String, mode: String, data: [UInt8], file: String? = nil
  ) {
    self.controlSocketPath = controlSocketPath
    self.peer = peer
    self.targets = targets
    self.mode = mode
    self.data = data
    self.file = file
  }

  /// What `:peer-send` typed as DATA: `@FILE` names a file (as the verb reads it), anything
  /// else is text.
  public init(controlSocketPath: String, peer: String, targets: String, mode: String, typed: String) {
    if typed.hasPrefix("@"), typed.count > 1 {
      self.init(
        controlSocketPath: controlSocketPath, peer: peer, targets: targets, mode: mode, data: [],
        file: String(typed.dropFirst()))
    } else {
      self.init(
        controlSocketPath: controlSocketPath, peer: peer, targets: targets, mode: mode,
        data: Array(typed.utf8))
    }
  }

  /// `send of 5 bytes reliable from alice#a11c to bob`, `send of file "notes.bin" reliable …`,
  /// escaped.
  public var operation: String {
    let what = file.map { "file \(DisplayText.quoted($0))" } ?? "\(data.count) bytes"
    return "send of \(what) \(mode) from \(DisplayText.field(peer)) to \(DisplayText.field(targets))"
  }
}
