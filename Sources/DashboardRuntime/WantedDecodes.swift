import Synchronization

/// The versions the dashboard's state wants decoded, shared by the loop (which sets it after
/// every message) and the executor's decode jobs (which skip a version that left it before
/// their turn came).
final class WantedDecodes: Sendable {
  private let serials = Mutex<Set<UInt64>>([])

  /// Replaces the set with what the state wants now.
  func set(_ wanted: Set<UInt64>) {
    serials.withLock { if $0 != wanted { $0 = wanted } }
  }

  /// Whether `serial` is wanted now.
  func contains(_ serial: UInt64) -> Bool { serials.withLock { $0.contains(serial) } }
}
