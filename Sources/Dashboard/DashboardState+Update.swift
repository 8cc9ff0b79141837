import KeyedArchive
import MailboxModel
import TerminalInput
import WormholeVocabulary

extension DashboardState {
  /// How long a changed mailbox stays highlighted.
  static let highlightMilliseconds: Int64 = 1_500
  /// How long a status message stays.
  static let statusMilliseconds: Int64 = 6_000

  /// The reducer: applies `message` and returns what the loop should do. Pure: no I/O, no clock.
  ///
  /// The read-only policy is decided here, once, for every write: when ``isReadOnly`` is set, a
  /// writing effect (``DashboardEffect/writes``) is never returned, whatever produced it (a key, a
  /// `:` command, a form, a confirmation); it is dropped and the refusal is reported on screen.
  public mutating func update(_ message: DashboardMessage) -> [DashboardEffect] {
    let effects = reduce(message)
    guard isReadOnly, effects.contains(where: \.writes) else { return effects }
    for effect in effects where effect.writes {
      report("read-only: \(effect.operation) refused (started with --read-only)", isError: true)
    }
    return effects.filter { !$0.writes }
  }

  private mutating func reduce(_ message: DashboardMessage) -> [DashboardEffect] {
    switch message {
    case .resize(let width, let height):
      self.width = max(width, 0)
      self.height = max(height, 0)
      updateTree(.scrollToSelection)
      clampContents()
      return []
    case .clock(let time):
      now = max(now, time)
      rate.advance(to: now)
      if let status, status.expires <= now { self.status = nil }
      if frozen == nil, let deadline = model.nextDeadline, deadline <= now {
        return applyModelEvents([.tick], at: now)
      }
      return []
    case .modelEvents(let events, let time):
      now = max(now, time)
      if frozen != nil {
        frozen?.hold(events, at: time)
        return []
      }
      return applyModelEvents(events, at: time)
    case .effectFinished(let result):
      reportResult(result)
      return []
    case .themeLoaded(let name, let error):
      if let error {
        report("theme failed: " + DisplayText.escaped(error), isError: true)
      } else {
        themeName = name
        report("theme " + DisplayText.escaped(name), isError: false)
      }
      return []
    case .key(let key):
      return handle(key)
    case .paste(let text):
      return paste(text)
    case .click(let row, let column):
      guard overlay == nil else { return [] }
      click(row: row, column: column)
      return []
    case .wheel(let up, let row, let column):
      guard overlay == nil, let pane = pane(atRow: row, column: column) else { return [] }
      focus = pane
      return perform(up ? .up : .down) + perform(up ? .up : .down) + perform(up ? .up : .down)
    }
  }

  /// Says how an effect ended, its gist first: `replay failed: <reason> (replay of …)`.
  mutating func reportResult(_ result: EffectResult) {
    let effect = result.effect
    guard let failure = result.failure else {
      let done: String
      switch effect {
      case .pass(_, let identifier, let value, let transiting):
        done = (value == nil ? "notified " : "passed ") + "\(identifier.displayField) (\(transiting))"
      case .clear(_, let identifier): done = "cleared \(identifier.displayField)"
      case .clearAll(let directory):
        done = "cleared every mailbox of \(DisplayText.field(displayPath(directory)))"
      case .replayVersion(_, let identifier, let serial, _, let toIdentifier, let transiting):
        done =
          "replayed version \(serial) of \(identifier.displayField) to \(toIdentifier.displayField) (\(transiting))"
      case .replayEntry(let entry, _, let toIdentifier, let transiting):
        done = "replayed entry \(entry) to \(toIdentifier.displayField) (\(transiting))"
      default: done = effect.operation + " done"
      }
      report(done, isError: false)
      return
    }
    var text = "\(effect.verb) failed: \(DisplayText.escaped(failure)) (\(effect.operation))"
    switch effect {
    case .replayEntry(let id, _, _, _):
      if let entry = model.trafficEntry(id), entry.carriesMessage, model.version(of: entry) == nil {
        text += "; " + nearestKeptVersionAdvice(for: entry.directory, entry.identifier, near: entry)
      }
    case .replayVersion(let directory, let identifier, let serial, _, _, _):
      if model.mailbox(identifier, in: directory)?.version(serial: serial) == nil {
        text += "; " + nearestKeptVersionAdvice(for: directory, identifier, serial: serial)
      }
    default: break
    }
    report(text, isError: true)
  }

  /// The pane under a cell, if any.
  func pane(atRow row: Int, column: Int) -> Pane? {
    let layout = DashboardLayout(width: width, height: height)
    guard !layout.isTooSmall else { return nil }
    for (pane, area) in [
      (Pane.mailboxes, layout.tree), (.contents, layout.contents), (.traffic, layout.traffic),
    ] {
      if row >= area.y, row < area.maxY, column >= area.x, column < area.maxX { return pane }
    }
    return nil
  }

  /// Focuses the pane under the click and selects the row clicked.
  mutating func click(row: Int, column: Int) {
    guard let pane = pane(atRow: row, column: column) else { return }
    focus = pane
    let layout = DashboardLayout(width: width, height: height)
    switch pane {
    case .mailboxes:
      let offset = row - layout.tree.y - 1
      if offset >= 0 { updateTree(.select(row: treePane.scroll + offset)) }
    case .contents:
      let offset = row - layout.contents.y - 2
      if offset >= 0 { setContentsCursor(contentsScroll + offset) }
    case .traffic:
      let offset = row - layout.traffic.y - 2
      updateTraffic(.selectShown(offset: offset, visibleRows: layout.bodyHeight(of: .traffic)))
    }
  }

  /// Shows `text` (already escaped) in the status line for a while, and keeps it in the
  /// message log.
  mutating func report(_ text: String, isError: Bool) {
    let message = StatusMessage(text, isError: isError, expires: now + Self.statusMilliseconds)
    status = message
    messageLog.append(message.text, isError: isError, at: now)
  }

  // MARK: Model events

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
          rate.record(entries.count, at: time)
          updateTraffic(.appended(entries))
        case .noticesAdded: break
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
    if !hasMoved, selection == nil || selection == treePane.directoryPaths.first.map(TreeNodeID.directory),
      treeRowCount > 1
    {
      updateTree(.select(row: 1))
    } else {
      updateTree(.resync)
    }
    // The contents' lines are built only when what they show may have changed, not for every
    // change of another mailbox.
    var selectedChanged = false
    if let node = selection, let names = changed[node.directory] {
      selectedChanged = node.identifier.map { names.contains($0) } ?? true
    }
    if structural || selectedChanged || selection != selectionBefore { clampContents() }
    if !changed.isEmpty { effects.append(.wake(atMilliseconds: time + Self.highlightMilliseconds)) }
    return effects
  }

  // MARK: Keys

  mutating func handle(_ key: Key) -> [DashboardEffect] {
    hasMoved = true
    if let overlay { return handle(key, in: overlay) }
    if DashboardLayout(width: width, height: height).isTooSmall {
      if key == .character("q") || key == .control("c") { return quit() }
      if key == .control("l") { return [.repaint] }
      return []
    }
    guard let binding = Keymap.binding(for: key, in: focus) else { return [] }
    return run(binding, binding.action)
  }

  /// Runs a binding's action, from its keys or its command: the one place the read-only rule
  /// of the keymap is applied (the effects are checked again by ``update(_:)``).
  mutating func run(_ binding: KeyBinding, _ action: DashboardAction) -> [DashboardEffect] {
    if binding.writes && isReadOnly {
      report("read-only: \(binding.help) is disabled (started with --read-only)", isError: true)
      return []
    }
    return perform(action)
  }

  mutating func quit() -> [DashboardEffect] {
    isQuitting = true
    return [.quit]
  }

  /// Does what `action` asks, from a key or a `:` command.
  mutating func perform(_ action: DashboardAction) -> [DashboardEffect] {
    let layout = DashboardLayout(width: width, height: height)
    let page = max(layout.bodyHeight(of: focus), 1)
    switch action {
    case .quit: return quit()
    case .help: overlay = .help(scroll: 0)
    case .messages: overlay = .messages(scroll: 0)
    case .repaint: return [.repaint]
    case .back:
      if focus == .mailboxes, mailboxFilter != nil {
        updateTree(.filter(nil))
      } else if focus == .traffic, trafficPane.filter != nil || trafficPane.selection != nil {
        updateTraffic(.back)
      } else if focus != .mailboxes {
        focus = .mailboxes
      }
    case .nextPane: focus = focus.next
    case .previousPane: focus = focus.previous
    case .down: move(by: 1)
    case .up: move(by: -1)
    case .pageDown: move(by: page)
    case .pageUp: move(by: -page)
    case .halfPageDown: move(by: max(page / 2, 1))
    case .halfPageUp: move(by: -max(page / 2, 1))
    case .top: move(to: 0)
    case .bottom: move(to: .max)
    case .toggle: toggle()
    case .filter(let text):
      let pane: Pane = focus == .traffic ? .traffic : .mailboxes
      if let text {
        setFilter(text.isEmpty ? nil : PaneFilter(text), pane: pane)
      } else {
        let current = pane == .traffic ? trafficPane.filter?.text : mailboxFilter?.text
        overlay = .filter(TextField(current ?? ""), pane: pane)
      }
    case .command: overlay = .command(TextField())
    case .pass(let request): return pass(request)
    case .clear(let named): confirmClear(named)
    case .clearAll:
      guard let directory = selectedDirectory else {
        report("clear-all: select a directory to clear its mailboxes", isError: true)
        return []
      }
      let count = presentCounts[directory] ?? 0
      overlay = .confirm(
        Confirmation(
          question: "Clear all \(count) mailboxes of \(DisplayText.field(displayPath(directory)))?",
          effect: .clearAll(directory: directory)))
    case .replay(let request): openReplay(request)
    case .sort(let order):
      updateTree(.sort(order ?? sort.next))
      report("sorted by \(sort.rawValue)", isError: false)
    case .freeze: return toggleFreeze()
    case .copy: return copy()
    case .theme(let request): return [.loadTheme(request)]
    case .nextView:
      updateContents(.nextView)
      clampContents()
    case .mark:
      let versions = selectedVersions
      if versions.indices.contains(contentsPane.historyCursor) {
        updateContents(.toggleMark(serial: versions[contentsPane.historyCursor].serial))
        report(
          contentsPane.markedSerial == nil
            ? "mark removed" : "marked: the diff view compares against this version",
          isError: false)
      }
    }
    return []
  }

  /// `p` opens the form; `:pass ID JSON` checks what it was given as the form would, and passes.
  private mutating func pass(_ request: DashboardAction.PassRequest?) -> [DashboardEffect] {
    guard let request else {
      overlay = .pass(
        PassForm(
          directories: treePane.directoryPaths, directory: selectedDirectory,
          identifier: selection?.identifier?.lossyText ?? ""))
      return []
    }
    let form = PassForm(
      directories: treePane.directoryPaths, directory: selectedDirectory, identifier: request.identifier,
      value: request.value)
    guard let effect = form.effect else {
      report("pass refused: " + DisplayText.escaped(form.problem ?? "the form is incomplete"), isError: true)
      return []
    }
    return [effect]
  }

  /// Asks before clearing the selected mailbox, or the one `named`, once the name is known to
  /// be an identifier.
  private mutating func confirmClear(_ named: String?) {
    let directory: FileName
    let identifier: FileName
    if let named {
      if let problem = MessageIdentifier.problem(with: named) {
        report(
          "clear refused: \(DisplayText.field(named)) is not an identifier: \(problem)", isError: true)
        return
      }
      guard let selected = selectedDirectory else {
        report("clear: select a directory first (the mailbox is cleared there)", isError: true)
        return
      }
      directory = selected
      identifier = FileName(named)
    } else {
      guard case .mailbox(let selected, let name)? = selection, selectedMailbox?.isPresent == true else {
        report("clear: select a mailbox that holds a message to clear it", isError: true)
        return
      }
      directory = selected
      identifier = name
    }
    overlay = .confirm(
      Confirmation(
        question: "Clear \(identifier.displayField)? Its message is removed from the disk.",
        effect: .clear(directory: directory, identifier: identifier)))
  }

  /// The selected mailbox's value as JSON for the clipboard, unless the dashboard did not keep
  /// it (too large) or cannot decode it: then nothing is copied (never a `null` standing for
  /// it), and the size or the reason is said.
  private mutating func copy() -> [DashboardEffect] {
    guard let version = selectedMailbox?.current else {
      report("copy: select a mailbox that holds a message to copy it", isError: true)
      return []
    }
    guard version.bytes != nil else {
      report(
        "copy refused: the value is too large to copy (\(Formatting.size(version.size)), \(version.size) bytes; the dashboard did not keep it)",
        isError: true)
      return []
    }
    let decoded = model.decoded(version)
    if case .undecodable(let reason) = decoded {
      report(
        "copy refused: the value cannot be read as an archive: \(DisplayText.escaped(reason))", isError: true)
      return []
    }
    report("copied the value as JSON", isError: false)
    return [.copyToClipboard(decoded.json)]
  }

  private mutating func move(by delta: Int) {
    switch focus {
    case .mailboxes: updateTree(.move(by: delta))
    case .contents:
      setContentsCursor(contentsCursor + delta)
    case .traffic: updateTraffic(.move(by: delta))
    }
  }

  private mutating func move(to row: Int) {
    switch focus {
    case .mailboxes: updateTree(row == .max ? .selectLast : .select(row: row))
    case .contents: setContentsCursor(row == .max ? Int.max / 2 : row)
    case .traffic: updateTraffic(row == .max ? .follow : .selectFirst)
    }
  }

  private mutating func toggle() {
    switch focus {
    case .mailboxes:
      if case .directory(let path)? = selection {
        updateTree(.toggle(path))
      } else {
        focus = .contents
      }
    case .contents:
      updateContents(.toggleBranch(lines: contentsLines()))
      clampContents()
    case .traffic: break
    }
  }

  private mutating func toggleFreeze() -> [DashboardEffect] {
    guard let held = frozen else {
      frozen = FrozenEvents()
      report("frozen: changes wait until f is pressed again", isError: false)
      return []
    }
    frozen = nil
    var effects: [DashboardEffect] = []
    for batch in held.batches { effects += applyModelEvents(batch.events, at: batch.at) }
    if held.overflowed {
      effects.append(.rescan)
      report("resumed: more changed than could be held; reading every directory again", isError: false)
    } else {
      report("resumed: \(held.newCount) change\(held.newCount == 1 ? "" : "s") applied", isError: false)
    }
    return effects
  }

  // MARK: Overlays

  private mutating func handle(_ key: Key, in overlay: Overlay) -> [DashboardEffect] {
    if key == .control("c") { return quit() }
    if key == .control("l") { return [.repaint] }
    return apply(
      overlay.update(key, messageLog: messageLog, size: DashboardLayout(width: width, height: height).size))
  }

  /// Keeps the overlay a step leaves, and does what it asks.
  mutating func apply(_ step: OverlayStep) -> [DashboardEffect] {
    overlay = step.overlay
    switch step.request {
    case nil: return []
    case .effect(let effect)?: return [effect]
    case .report(let text, let isError)?: report(text, isError: isError)
    case .command(let line)?: return runCommand(line)
    case .filter(let text, let pane)?: setFilter(text.isEmpty ? nil : PaneFilter(text), pane: pane)
    }
    return []
  }

  mutating func setFilter(_ filter: PaneFilter?, pane: Pane) {
    filterApplications += 1
    if pane == .traffic {
      updateTraffic(.filter(filter))
    } else {
      updateTree(.filter(filter))
    }
  }

  /// A directory as the tree shows it: relative to the root it is under (not yet escaped).
  public func displayPath(_ directory: FileName) -> String {
    let path = directory.lossyText
    for root in rootPaths {
      if path == root { return root.split(separator: "/").last.map(String.init) ?? root }
      if path.hasPrefix(root + "/") { return String(path.dropFirst(root.count + 1)) }
    }
    return path
  }

  // MARK: Commands

  /// Runs a `:` command line: the keymap parses it into the binding it names and the action
  /// it asks for, which runs as the binding's keys would (read-only rule included).
  mutating func runCommand(_ line: String) -> [DashboardEffect] {
    switch Keymap.parse(commandLine: line) {
    case nil: return []
    case .failure(let problem)?:
      report(problem.message, isError: true)
      return []
    case .success(let (binding, action))?:
      return run(binding, action)
    }
  }
}
