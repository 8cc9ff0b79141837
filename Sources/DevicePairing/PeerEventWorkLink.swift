import PeerSession

/// A ``PeerLink`` that hands a ``LocalPeer``'s events over on threads of its own: what
/// ``LocalPeer`` runs over, the local link (``LocalPeerLink``) or the broker's (``MQTTPeerLink``).
///
/// The peer gives the link its work (which takes the engine's waiting events and hands them to
/// the handler) before starting it, and the engine's events notifier calls ``eventsWaiting()``.
/// The link runs the work on a thread that is not the one that reads frames for long, so a
/// handler that falls behind (a slow terminal) holds up only itself, and the engine drops
/// unreliable data beyond its receive queue, and counts it, instead of the link backing up.
public protocol PeerEventWorkLink: PeerLink {
  /// The work to run whenever ``eventsWaiting()`` said so. Set before ``PeerLink/start(_:)``.
  func setEventWork(_ work: @escaping @Sendable () -> Void)

  /// Says that events wait for the work; returns at once (called with nothing locked, from
  /// whichever thread queued the events).
  func eventsWaiting()
}

extension LocalPeerLink: PeerEventWorkLink {}
