import Foundation
import Glibc
import WormholeVocabulary

/// Where a ``WormholeTransiting`` that delivers incoming messages itself (a session type) hands
/// them: the listeners of its ``Wormhole``. Once the wormhole is gone, deliveries are dropped.
public final class TransitingInbox: Sendable {
  private weak let registry: ListenerRegistry?

  init(registry: ListenerRegistry) { self.registry = registry }

  /// Whether the wormhole still exists (deliveries reach its listeners).
  public var isOpen: Bool { registry != nil }

  /// Hands `archive`, a message that arrived for `identifier` by `transiting`, to the listeners
  /// of `identifier`: decoded as ``Wormhole/message(withIdentifier:)`` decodes a mailbox (a
  /// failure to decode is the ``ReceivedMessage/failure``). `nil` is a notification without a
  /// message.
  ///
  /// The ``ReceivedMessage/record`` is made here, not read from a journal: its sequence is 0,
  /// its kind `pass` (`notify` without an archive), its sender the peer in `details` (else
  /// "session"), its time `milliseconds` since 1970 (the sender's clock).
  public func deliver(
    _ archive: [UInt8]?, identifier: String, transiting: TransitingType, details: TrafficDetails,
    milliseconds: Int64
  ) {
    guard let registry else { return }
    let record = TrafficRecord(
      sequence: 0, milliseconds: milliseconds, processIdentifier: getpid(), sender: details.peer ?? "session",
      transiting: transiting.rawValue, kind: archive == nil ? .notify : .pass, identifier: identifier,
      bytes: archive?.count ?? 0, outcome: .ok, details: details)
    var received = ReceivedMessage(identifier: identifier, message: nil, archive: nil, record: record)
    if let archive {
      received.archive = Data(archive)
      let peer = details.peer.map(quoted) ?? "the peer"
      let source = "the \(transiting.rawValue) message \(quoted(identifier)) from \(peer)"
      do throws(WormholeError) {
        received.message = try MessageCoding.decode(archive, path: source)
      } catch {
        received.failure = error
      }
    }
    registry.deliver(received)
  }
}
