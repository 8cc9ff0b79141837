import DeviceSession
import PeerSession

extension PeerDirectory {
  /// Makes the directory if need be and takes `peer`'s run lock, which the `peer` verbs, the
  /// dashboard and other peers' sweeps judge it running by; whichever link the peer runs over.
  /// Its id is new, so only a sweep may hold its lock a moment: that is waited for.
  func takeRunLock(for peer: PeerIdentity) throws(LinkError) -> RunLock {
    do throws(SystemCallFailure) { try DeviceFiles.makeDirectories(path) } catch {
      throw LinkError(error.messageAdvisingAWritableHome)
    }
    do throws(RunLock.Failure) { return try RunLock(path: lockPath(peer.id), waits: true) } catch {
      switch error {
      case .held(let pid): throw LinkError("peer \(peer) already runs (pid \(pid.map(String.init) ?? "?"))")
      case .unavailable(let reason): throw LinkError(reason)
      }
    }
  }
}
