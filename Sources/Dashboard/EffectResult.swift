/// How an effect the loop ran ended: the operation itself, and when it failed, why.
public struct EffectResult: Sendable, Hashable {
  /// The effect that ran.
  public var effect: DashboardEffect
  /// The error's description when it failed (as the operation reported it), `nil` when it did
  /// what it was asked.
  public var failure: String?

  /// An effect that did what it was asked.
  public static func done(_ effect: DashboardEffect) -> EffectResult {
    EffectResult(effect: effect, failure: nil)
  }

  /// An effect that failed, with the error's description.
  public static func failed(_ effect: DashboardEffect, _ reason: String) -> EffectResult {
    EffectResult(effect: effect, failure: reason)
  }

  public init(effect: DashboardEffect, failure: String?) {
    self.effect = effect
    self.failure = failure
  }
}
