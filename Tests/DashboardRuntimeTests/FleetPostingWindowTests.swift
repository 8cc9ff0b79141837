import Testing

@testable import DashboardRuntime

/// The fleet's source takes a batch only while the loop keeps up: checked messages the loop
/// has not applied could otherwise pile up in its backlog without bound (the bound on what
/// waits to be checked moved the flood there).
@Suite struct FleetPostingWindowTests {
  @Test func noBatchIsTakenWhileTooManyPostedWaitUnapplied() {
    var window = FleetPostingWindow()
    window.applied(0)
    #expect(window.isOpen)
    window.posted(FleetPostingWindow.slack + 1)
    #expect(!window.isOpen, "the loop has applied none of them")
    window.applied(1)
    #expect(window.isOpen)
    window.posted(10_000)
    window.applied(9_000)
    #expect(!window.isOpen)
    window.applied(2_000)
    #expect(window.isOpen)
  }

  @Test func withoutALoopTheWindowStaysOpen() {
    var window = FleetPostingWindow()
    window.posted(1_000_000)
    #expect(window.isOpen)
  }
}
