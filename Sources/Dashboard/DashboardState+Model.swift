import ArchivedValues
import MailboxModel
import WormholeVocabulary

/// The model's events: the model changes first, then each pane follows it from what changed.
extension DashboardState {
  /// Applies the watcher's events to the model and lets the panes follow.
  mutating func applyModelEvents(_ events: [ModelEvent], at time: Int64) -> [DashboardEffect] {
    var effects: [DashboardEffect] = []
    var changed: [FileName: [FileName]] = [:]
    var structural = false
    let selectionBefore = selection
    for event in events {
      // Present counts move by what this event changed, never by a count of the directory.
      var presence: (directory: FileName, identifier: FileName, before: Bool)?
      switch event {
      case .mailboxChanged(let directory, let identifier, _), .mailboxRemoved(let directory, let identifier):
        presence = (directory, identifier, model.mailbox(identifier, in: directory)?.countsAsPresent ?? false)
      default: break
      }
      defer {
        if let presence {
          let after = model.mailbox(presence.identifier, in: presence.directory)?.countsAsPresent ?? false
          if after != presence.before {
            updateTree(.presenceChanged(directory: presence.directory, by: after ? 1 : -1))
          }
        }
      }
      for effect in model.apply(event, at: time) {
        switch effect {
        case .tick(let at): effects.append(.wake(atMilliseconds: at))
        case .trafficAppended(let entries):
          // What a journal already held when it was first read is history, not traffic now.
          if case .journalRecords(_, _, initial: true) = event {
          } else {
            rate.record(entries.count, at: time)
          }
          updateTraffic(.appended(entries))
        case .noticesAdded(let notices):
          // Said like any message: on the status line for a while, then in the log (L).
          for notice in notices { report(DisplayText.escaped(notice), isError: false) }
        }
      }
      switch event {
      case .mailboxChanged(let directory, let identifier, _), .mailboxRemoved(let directory, let identifier):
        changed[directory, default: []].append(identifier)
      case .directoryAppeared, .directoryVanished, .directoryScanned:
        structural = true
      case .journalRecords, .directoryError, .watchLimitReached, .notice, .tick:
        break
      }
    }
    if structural {
      updateTree(.rebuild)
    } else {
      for (directory, identifiers) in changed {
        updateTree(.mailboxesChanged(directory: directory, identifiers: identifiers))
      }
    }
    updateTraffic(.droppedFromFront)
    // Until the operator moves, the first mailbox is selected as the model fills, whichever
    // branch held the selection first (the pairs', read before any mailbox appeared).
    if !hasMoved, selection?.identifier == nil, let row = treePane.firstMailboxRow {
      updateTree(.select(row: row))
    } else if !hasMoved,
      selection == nil || selection == treePane.directoryPaths.first.map(TreeNodeID.directory),
      treeRowCount > 1
    {
      updateTree(.select(row: 1))
    } else {
      updateTree(.resync)
    }
    // The contents' lines are built only when what they show may have changed, not for every
    // change of another mailbox.
    var selectedChanged = false
    if let node = selection, let directory = node.directory, let names = changed[directory] {
      selectedChanged = node.identifier.map { names.contains($0) } ?? true
    }
    if structural || selectedChanged || selection != selectionBefore { clampContents() }
    if !changed.isEmpty { effects.append(.wake(atMilliseconds: time + Self.highlightMilliseconds)) }
    return effects
  }
}
