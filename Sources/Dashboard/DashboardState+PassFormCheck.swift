extension DashboardState {
  /// After a key: when the pass form's value waits to be checked, the check is due
  /// ``PassForm/checkDelayMilliseconds`` from now (each key moves it on), and the loop is asked
  /// to wake then.
  mutating func passFormCheckWake() -> [DashboardEffect] {
    guard case .pass(let form)? = overlay, form.isCheckPending else {
      passFormCheckDue = nil
      return []
    }
    let due = now + PassForm.checkDelayMilliseconds
    passFormCheckDue = due
    return [.wake(atMilliseconds: due)]
  }

  /// On the clock: checks the pass form's value once its check is due.
  mutating func checkPassFormIfDue() {
    guard let due = passFormCheckDue, now >= due else { return }
    passFormCheckDue = nil
    if case .pass(var form)? = overlay {
      form.checkIfPending()
      overlay = .pass(form)
    }
  }
}
