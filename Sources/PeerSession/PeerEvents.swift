/// A peer engine's events as an `AsyncSequence` (``PeerEngine/events``): each iteration takes
/// the oldest event, so a consumer that falls behind sees unreliable drops counted, as a slow
/// handler does.
public struct PeerEvents: AsyncSequence, Sendable {
  public typealias Element = PeerEvent
  public typealias Failure = Never

  let engine: PeerEngine

  public struct AsyncIterator: AsyncIteratorProtocol {
    let engine: PeerEngine

    /// The next event, waiting for one; `nil` once the engine stopped and every event was taken.
    public mutating func next() async -> PeerEvent? { await engine.nextEvent() }
  }

  public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(engine: engine) }
}
