import Testing
import WakeSignal

@Suite struct WakePipeTests {
  @Test func aSignalWakesUntilDrained() throws {
    let pipe = try WakePipe()
    #expect(!pipe.wait(milliseconds: 0))
    pipe.signal()
    #expect(pipe.wait(milliseconds: 0))
    #expect(pipe.wait(milliseconds: 0), "waiting does not drain")
    pipe.drain()
    #expect(!pipe.wait(milliseconds: 0))
  }

  /// More signals than the pipe holds neither block nor fail; one drain empties it.
  @Test func aFullPipeNeverBlocksTheSignaller() throws {
    let pipe = try WakePipe()
    for _ in 0..<100_000 { pipe.signal() }
    #expect(pipe.wait(milliseconds: 0))
    pipe.drain()
    #expect(!pipe.wait(milliseconds: 0))
  }
}
