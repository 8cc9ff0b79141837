import Testing

extension Trait where Self == TimeLimitTrait {
  /// A time limit that turns a hang into a named failure, and nothing more.
  ///
  /// Swift Testing starts a test's clock when it starts the test, not when the test first runs:
  /// on two cores its pool has two threads, and the suite's blocking tests (processes, tmux,
  /// brokers) can hold both for minutes while the tests already started wait their turn (under a
  /// heavy load, pure tests were seen to take 250 s this way). So the limit is longer than a whole
  /// run of the suite may take; speed is the benchmark's business, never a test's.
  public static var hangLimit: Self { .timeLimit(.minutes(10)) }
}
