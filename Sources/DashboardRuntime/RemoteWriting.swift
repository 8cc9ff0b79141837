import Dashboard

/// Sends a ``Dashboard/RemoteWrite`` to its machine's bridge and says how it ended: the real one
/// is ``FleetRemoteWrites`` (through the broker); tests give their own.
public protocol RemoteWriting: Sendable {
  /// Sends `write` and waits for the bridge's reply; `effect` is what the reducer asked for.
  func perform(_ write: RemoteWrite, effect: DashboardEffect) -> EffectResult
}
