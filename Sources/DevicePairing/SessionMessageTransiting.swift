import DeviceSession
import Wormhole
import WormholeVocabulary

/// The `session-message` transiting type on a simulated device: WatchConnectivity's live
/// messages (`sendMessage`), as MMWormhole's `MMWormholeSessionMessageTransiting`.
///
/// A message is sent at once, in order, and only while the counterpart is reachable; otherwise
/// the pass throws ``WormholeError/sessionFailed(_:code:reason:)`` with code 7007. Nothing is
/// stored: reading a message back returns `nil`, as in MMWormhole. `passMessage(nil, ...)` sends an
/// empty message, which the counterpart's listeners hear as a notification without a message. Deleting removes the device's
/// own mailbox, as MMWormhole's file transiting underneath does.
public struct SessionMessageTransiting: SessionTransiting {
  public let session: ListeningSession

  public var transitingType: TransitingType { .sessionMessage }

  public func writeMessage(_ archive: [UInt8], identifier: String, transfer: String) throws(WormholeError)
    -> TransitingWrite
  {
    do throws(SessionError) {
      try session.device.session.sendMessage(archive, identifier: identifier)
    } catch {
      throw ListeningSession.failure(error, transitingType)
    }
    return .handedOff(.delivered)
  }

  /// Always `nil`: a live message is never stored.
  public func message(withIdentifier identifier: String, limit: Int) throws(WormholeError) -> [UInt8]? { nil }
}
