import ArchivedValues

/// A simulator device set in the dashboard: its containers' labels in the tree, and what the
/// set says (summary, pairs, notes) in the message log.
extension DashboardState {
  /// Shows `labels`: the tree names each container's directories by its label from now on, the
  /// header names the set's directory as the root; its groups (each label with its path), pairs
  /// and then notes go to the message log (`L`), and the summary to the status line, with the number of notes, so that a damaged
  /// set says so on screen.
  public mutating func showDeviceSet(_ labels: DeviceSetLabels) {
    deviceSetLabels = labels
    // The groups are listed by their labels, as people read them, not by UDID path.
    updateTree(.labels(labels))
    rootPaths = [labels.path]
    if isReadOnly { readOnlyReason = "a device set is read-only unless --read-write is given" }
    // Every group, with the path its label stands for (one without a mailbox is an empty tree row).
    for container in labels.containers {
      messageLog.append(
        "group " + DisplayText.escaped(container.label) + " at " + container.path.displayField,
        isError: false,
        at: now)
    }
    for pair in labels.pairs { messageLog.append("pair " + pair, isError: false, at: now) }
    for note in labels.notes { messageLog.append("note: " + note, isError: true, at: now) }
    var summary = labels.summary
    if !labels.notes.isEmpty {
      summary += "; \(labels.notes.count) note\(labels.notes.count == 1 ? "" : "s") (L shows them)"
    }
    report(summary, isError: !labels.notes.isEmpty)
  }
}
