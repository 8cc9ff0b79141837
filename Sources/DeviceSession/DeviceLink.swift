/// What a link tells the session that runs over it.
public enum LinkEvent: Sendable, Equatable {
  /// The counterpart became reachable (`true`: connected) or unreachable (`false`).
  case reachabilityChanged(Bool)
  /// A frame arrived from the counterpart.
  case received(DeviceFrame)
  /// Frames that arrived together, in order: the same as one `received` each, except that the
  /// session may store a run of transfers (or take a run of acknowledgements) as one batch.
  case receivedFrames([DeviceFrame])
  /// The counterpart sent bytes that are not a frame (the link dropped that connection), or a
  /// frame out of place: what came on a connection or topic that only the counterpart's device
  /// uses (a local connection from the holder of its run lock; a frame that decoded, on one of
  /// its topics).
  case refused(FrameError)
  /// Input whose sender the link cannot know was refused: a broker's message that did not
  /// decode, was too large or came on a topic the counterpart does not publish on; bytes on a
  /// local connection not known to be the counterpart's. Not said as the counterpart's.
  case refusedInput(RefusedInput)
  /// What carries the link refused this device itself, not anything the counterpart sent: a
  /// publication its broker's ACL does not accept, or another run of its role that took its
  /// place (then the link no longer connects).
  case denied(LinkDenial)
}

/// The channel between a device and its counterpart: frames out, frames and reachability in.
///
/// An implementation decides how the two devices find each other (``LinkEvent`` is all the
/// session sees), so nothing above a link assumes both devices run on one machine. The local
/// implementation is a Unix-domain socket per running device; a networked one (a broker) can
/// take its place.
///
/// Events are delivered one at a time, in order: from a thread of the link's choosing, or from
/// a caller of ``receiveOnCallingThread(until:deadline:starting:)`` while it reads. A link is
/// reachable only between a `reachabilityChanged(true)` and the next `false`.
public protocol DeviceLink: Sendable {
  /// Starts connecting to the counterpart and delivering events to `handler`. Called once.
  func start(_ handler: @escaping @Sendable (LinkEvent) -> Void) throws(LinkError)

  /// Queues `frame` for the counterpart without blocking. Returns `false` when the counterpart
  /// is not reachable (nothing was queued). Frames sent on one connection arrive in order.
  func send(_ frame: DeviceFrame) -> Bool

  /// Whether ``send(_:)`` can hand a transfer or a context to something that keeps it for an
  /// absent counterpart (an MQTT broker's persistent session, a retained context): the session
  /// then sends those at once, reachable or not, instead of waiting on its own disk for the
  /// counterpart (each stays in the sender's queue until acknowledged, so nothing is lost).
  /// Live messages never wait. `false` unless a link says otherwise.
  var queuesWhileUnreachable: Bool { get }

  /// Calls `start` (which sends), then reads the counterpart's frames on the calling thread,
  /// handing their events to the handler there (in order, one at a time with the link's own
  /// thread), until `isDone()` returns `true`, `deadline` passes or the link needs its thread
  /// back: a caller waiting for a reply so takes it itself, without waking a thread that would
  /// then wake it. Every frame that arrives after `start` is read here until then. Returns
  /// whether it read; with `false` (the default, and whenever another thread is reading), `start`
  /// was still called and the events are the link's thread's, so the caller waits as it would
  /// otherwise. Not to be called from the handler.
  func receiveOnCallingThread(
    until isDone: () -> Bool, deadline: ContinuousClock.Instant, starting start: () -> Void
  ) -> Bool

  /// Stops: closes the connection (the counterpart sees this device unreachable) and delivers
  /// no more events once it returns. Not to be called from the handler (it waits for the
  /// thread that runs it).
  func stop()
}

extension DeviceLink {
  /// A link delivers only to a reachable counterpart.
  public var queuesWhileUnreachable: Bool { false }

  /// A link whose events all come from its own thread.
  public func receiveOnCallingThread(
    until isDone: () -> Bool, deadline: ContinuousClock.Instant, starting start: () -> Void
  ) -> Bool {
    start()
    return false
  }
}

/// Why a link could not start.
public struct LinkError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What failed, in words.
  public var reason: String

  public init(_ reason: String) { self.reason = reason }

  public var description: String { "the device link could not start: \(reason)" }
}
