import DeviceSession
import Wormhole
import WormholeVocabulary

/// The `session-file` transiting type on a simulated device: WatchConnectivity's file transfers,
/// as MMWormhole's `MMWormholeSessionFileTransiting`.
///
/// Passing queues a transfer (stored on the device before the pass returns; its record says
/// `queued` and carries the transfer's id), sent in order when the counterpart is reachable and
/// surviving either side's absence. The receiver stores it in its own mailbox, as
/// MMWormholeSession does, and its listeners hear it. Reading returns the device's mailbox (what
/// transfers to it stored); deleting removes the device's own mailboxes.
public struct SessionFileTransiting: SessionTransiting {
  public let session: ListeningSession

  public var transitingType: TransitingType { .sessionFile }

  public func writeMessage(_ archive: [UInt8], identifier: String, transfer: String) throws(WormholeError)
    -> TransitingWrite
  {
    guard !archive.isEmpty else { throw ListeningSession.noNotifications(transitingType) }
    let queued: FileTransfer
    do throws(SessionError) {
      queued = try session.device.session.transferFile(archive, identifier: identifier)
    } catch {
      throw ListeningSession.failure(error, transitingType)
    }
    return TransitingWrite(
      notifiesListeners: false,
      details: TrafficDetails(
        delivery: .queued,
        transfer: SessionJournal.transferIdentifier(
          sender: SessionJournal.name(session.device.address), transfer: queued.id)))
  }

  public func message(withIdentifier identifier: String, limit: Int) throws(WormholeError) -> [UInt8]? {
    try session.mailboxes.message(withIdentifier: identifier, limit: limit)
  }
}
