import Testing

@testable import DevicePairing

/// A duration as a poll(2) timeout: never shorter than the duration, never negative.
@Suite struct PollTimeoutTests {
  @Test func aTimeoutIsRoundedUpToWholeMillisecondsAndClamped() {
    #expect(Duration.zero.pollTimeoutMilliseconds == 0)
    #expect(Duration.seconds(-1).pollTimeoutMilliseconds == 0)
    #expect(Duration.nanoseconds(1).pollTimeoutMilliseconds == 1)
    #expect(Duration.milliseconds(1).pollTimeoutMilliseconds == 1)
    #expect((Duration.seconds(1) + .nanoseconds(1)).pollTimeoutMilliseconds == 1001)
    #expect(Duration.seconds(Int64.max / 2).pollTimeoutMilliseconds == Int32.max)
  }
}
