import Glibc

/// Threads of their own, off Swift's cooperative pool, for the loops that block in `poll`,
/// `accept` or libmosquitto: Wormhole's journal follower; in DevicePairing the device and peer
/// links, the control servers, a running peer's readers; MQTTClient's network loop.
package enum SystemThread {
  /// `pthread_create`'s error, when no thread could be made.
  package struct Failure: Error {
    package let code: Int32
    package var message: String { String(cString: strerror(code)) }
  }

  /// Runs `body` on a new, joinable thread, which holds what `body` captures until it returns.
  package static func start(_ body: @escaping @Sendable () -> Void) -> Result<pthread_t, Failure> {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    let created = pthread_create(
      &thread, nil,
      { raw in
        guard let raw else { return nil }
        Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
        return nil
      }, context)
    guard created == 0 else {
      Unmanaged<Body>.fromOpaque(context).release()
      return .failure(Failure(code: created))
    }
    return .success(thread)
  }

  /// Runs `body` on a new, detached thread; whether one could be made.
  package static func detach(_ body: @escaping @Sendable () -> Void) -> Bool {
    guard case .success(let thread) = start(body) else { return false }
    _ = pthread_detach(thread)
    return true
  }

  private final class Body: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
  }
}
