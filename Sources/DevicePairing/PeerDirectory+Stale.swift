import DeviceSession
import Glibc

extension PeerDirectory {
  /// The suffixes of a peer's files in the service's folder (its own folder, with its journal
  /// and resources, is never swept).
  static let staleSuffixes = [".advert", ".broker", ".peer", ".sock", ".control.sock", ".lock"]

  /// Removes the files of the peers whose run lock is not held (killed with SIGKILL, they left
  /// them behind), except those of `running`: what a peer that starts here does, whichever
  /// link it runs over.
  func sweepStale(except running: UInt64) {
    for name in (try? DeviceFiles.entries(of: path)) ?? [] {
      for suffix in Self.staleSuffixes {
        guard let id = Self.id(inFileName: name, suffix: suffix), id != running,
          RunLock.holder(at: lockPath(id)) == nil
        else { continue }
        _ = unlink(path + "/" + name)
      }
    }
  }
}
