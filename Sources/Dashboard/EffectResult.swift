/// How an effect the loop ran ended: the operation itself, and when it failed, why.
public struct EffectResult: Sendable, Hashable {
  /// The effect that ran.
  public var effect: DashboardEffect
  /// The error's description when it failed (as the operation reported it), `nil` when it did
  /// what it was asked.
  public var failure: String?
  /// What the operation said it did, when there is more to say than that it is done: where a
  /// session send went ("delivered to the watch", "queued: transfer 12"), a reply's summary.
  /// Raw text: shown through `DisplayText`.
  public var detail: String?

  /// An effect that did what it was asked; `detail` says how, if there is more to say.
  public static func done(_ effect: DashboardEffect, detail: String? = nil) -> EffectResult {
    EffectResult(effect: effect, failure: nil, detail: detail)
  }

  /// An effect that failed, with the error's description.
  public static func failed(_ effect: DashboardEffect, _ reason: String) -> EffectResult {
    EffectResult(effect: effect, failure: reason)
  }

  public init(effect: DashboardEffect, failure: String?, detail: String? = nil) {
    self.effect = effect
    self.failure = failure
    self.detail = detail
  }
}
