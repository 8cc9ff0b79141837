import DeviceSession
import Glibc

extension PeerDirectory {
  /// The suffixes of a peer's files in the service's folder (its own folder, with its journal
  /// and resources, is never swept).
  static let staleSuffixes = [".advert", ".broker", ".peer", ".sock", ".control.sock", ".lock"]

  /// Removes the files of the peers whose run lock is not held (killed with SIGKILL, they left
  /// them behind), except those of `running`: what a peer that starts here does, whichever
  /// link it runs over. Each peer's files go while this process holds its lock
  /// (``RunLock/whileFree(at:_:)``), the lock file last, so that a peer taking its lock at that
  /// moment either keeps it or makes its lock file again; ids are never reused, so no later
  /// peer owns the other files.
  func sweepStale(except running: UInt64) {
    var stale: [UInt64: [String]] = [:]
    for name in (try? DeviceFiles.entries(of: path)) ?? [] {
      for suffix in Self.staleSuffixes {
        guard let id = Self.id(inFileName: name, suffix: suffix), id != running else { continue }
        stale[id, default: []].append(path + "/" + name)
      }
    }
    for (id, paths) in stale {
      let lock = lockPath(id)
      RunLock.whileFree(at: lock) { hasLockFile in
        for file in paths where file != lock { _ = unlink(file) }
        if hasLockFile { _ = unlink(lock) }
      }
    }
  }
}
