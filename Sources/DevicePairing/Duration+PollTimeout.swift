extension Duration {
  /// The duration as a `poll(2)` timeout: whole milliseconds rounded up, so that a poll never
  /// wakes before the duration is over; 0 for one that is over, at most `Int32.max`.
  var pollTimeoutMilliseconds: Int32 {
    guard self > .zero else { return 0 }
    let (seconds, attoseconds) = components
    let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
    guard !milliseconds.overflow else { return .max }
    return Int32(
      clamping: milliseconds.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
  }
}
