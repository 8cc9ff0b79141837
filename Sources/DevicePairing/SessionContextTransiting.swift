import DeviceSession
import Wormhole
import WormholeVocabulary

/// The `session-context` transiting type on a simulated device: WatchConnectivity's application
/// context, as MMWormhole's `MMWormholeSessionContextTransiting`.
///
/// Passing merges the identifier's archive into the device's one application context (MMWormhole's
/// dictionary) and sends it now or when the counterpart is next reachable; the latest wins, and a
/// context identical to the current one is neither sent nor delivered (its record says
/// `unchanged`). Reading returns the identifier's archive in the received context, else in the
/// device's own context, as MMWormholeSession. Deleting removes the identifier from the device's
/// own context (as MMWormhole's `deleteContentForIdentifier:`), which the counterpart receives as
/// an update: its received context then lacks it, and its listeners hear nothing for it.
public struct SessionContextTransiting: SessionTransiting {
  public let session: ListeningSession
  /// Whether a context identical to the current one is delivered anyway (MMWormhole #85).
  public let deliversIdentical: Bool

  public init(session: ListeningSession, deliversIdentical: Bool = false) {
    self.session = session
    self.deliversIdentical = deliversIdentical
  }

  /// The delivery state of a pass that changed nothing (an identical context).
  public static let unchanged = TrafficDelivery(rawValue: "unchanged")

  public var transitingType: TransitingType { .sessionContext }

  public func writeMessage(_ archive: [UInt8], identifier: String, transfer: String) throws(WormholeError)
    -> TransitingWrite
  {
    guard !archive.isEmpty else { throw ListeningSession.noNotifications(transitingType) }
    switch try update(archive, identifier: identifier, deliveringIdentical: deliversIdentical) {
    case .sent: return .handedOff(.delivered)
    case .queued: return .handedOff(.queued)
    case .unchanged: return .handedOff(Self.unchanged)
    }
  }

  public func message(withIdentifier identifier: String, limit: Int) throws(WormholeError) -> [UInt8]? {
    let engine = session.device.session
    let archive =
      engine.receivedApplicationContext.entries[identifier] ?? engine.applicationContext.entries[identifier]
    guard let archive, !archive.isEmpty else { return nil }
    guard archive.count <= limit else {
      throw .messageTooLarge(
        path: "the application context's \(identifier)", bytes: archive.count, limit: limit)
    }
    return archive
  }

  public func deleteMessage(withIdentifier identifier: String) throws(WormholeError) {
    try remove([identifier])
  }

  /// Empties the device's application context (`updateApplicationContext([:])` in MMWormhole).
  public func deleteAllMessages() throws(WormholeError) {
    try remove(session.device.session.applicationContext.identifiers)
  }

  private func remove(_ identifiers: [String]) throws(WormholeError) {
    do throws(SessionError) {
      try session.device.session.removeFromApplicationContext(identifiers)
    } catch {
      throw ListeningSession.failure(error, transitingType)
    }
  }

  private func update(_ archive: [UInt8], identifier: String, deliveringIdentical: Bool) throws(WormholeError)
    -> SessionEngine.ContextUpdate
  {
    do throws(SessionError) {
      return try session.device.session.updateApplicationContext(
        archive, identifier: identifier, deliveringIdentical: deliveringIdentical)
    } catch {
      throw ListeningSession.failure(error, transitingType)
    }
  }
}
