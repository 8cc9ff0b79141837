/// How many fleet messages the source posted that the loop has not applied yet: the source
/// takes its next batch only while at most ``slack`` wait, so that messages checked faster
/// than the loop applies them wait, bounded, in ``FleetPendingInputs`` (the excess dropped and
/// counted there), not in the loop's backlog.
///
/// Until the loop says what it applied (``applied(_:)``, which the loop does at its start), the
/// window stays open: a caller without a loop (a test, `dump --broker`) is never held back.
struct FleetPostingWindow: Sendable {
  /// Messages that may wait unapplied when the next batch is taken: a few of the loop's slices.
  static let slack = 4 * 128

  private var unapplied = 0
  private var isWatched = false

  /// Whether the next batch may be taken.
  var isOpen: Bool { !isWatched || unapplied <= Self.slack }

  /// A batch of `count` messages was posted.
  mutating func posted(_ count: Int) { unapplied += count }

  /// The loop applied `count` more messages (0 at its start).
  mutating func applied(_ count: Int) {
    isWatched = true
    unapplied = max(unapplied - count, 0)
  }
}
