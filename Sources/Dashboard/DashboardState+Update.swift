import ArchivedValues
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
  ///
  /// Decoding is not done here either: when the contents pane needs a version that is not
  /// decoded yet, a ``DashboardEffect/decode(directory:identifier:serial:)`` is returned, once
  /// per version, and the pane says "decoding …" until ``DashboardMessage/decoded(serial:_:)``
  /// brings it.
  public mutating func update(_ message: DashboardMessage) -> [DashboardEffect] {
    let effects = reduce(message) + requestDecodes()
    // The frame that follows shows these lines: built here once, not per frame.
    refreshedContentsLines()
    guard isReadOnly, effects.contains(where: \.writes) else { return effects }
    for effect in effects where effect.writes {
      report("read-only: \(effect.operation) refused (\(readOnlyReason))", isError: true)
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
      checkPassFormIfDue()
      checkFleetShortfallIfDue()
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
    case .decoded(let serial, let decoded):
      // Its lines change: the cursor stays on one of them.
      if decodedVersions.store(decoded, for: serial) { clampContents() }
      return []
    case .decodeSkipped(let serial):
      decodedVersions.skipped(serial)
      return []
    case .themeLoaded(let name, let error):
      if let error {
        report("theme failed: " + DisplayText.escaped(error), isError: true)
      } else {
        themeName = name
        report("theme " + DisplayText.escaped(name), isError: false)
      }
      return []
    case .pairs(let pairs):
      applyPairs(pairs)
      return []
    case .peers(let peers):
      applyPeers(peers)
      return []
    case .fleet(let inputs, let time):
      now = max(now, time)
      return applyFleet(inputs, at: time)
    case .fleetConnection(let problem):
      fleetConnectionChanged(problem)
      return []
    case .key(let key):
      return handle(key) + passFormCheckWake()
    case .paste(let text):
      return paste(text)
    case .pasteTooLarge(let byteCount):
      report(
        "paste refused: \(Formatting.size(byteCount)) is more than the terminal reads in one paste; nothing was inserted",
        isError: true)
      return []
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

  /// The decode effects for the versions the contents pane wants and does not have yet.
  private mutating func requestDecodes() -> [DashboardEffect] {
    if case .remoteMailbox? = treePane.selection, let mailbox = selectedMailbox {
      // A bridged machine's version: its archive came in the bridge's payload.
      return decodedVersions.want(contents.wantedSerials).compactMap { serial in
        mailbox.version(serial: serial).map { .decodeRemote($0) }
      }
    }
    guard case .mailbox(let directory, let identifier)? = treePane.selection else {
      _ = decodedVersions.want([])
      return []
    }
    return decodedVersions.want(contents.wantedSerials).map {
      .decode(directory: directory, identifier: identifier, serial: $0)
    }
  }

  /// Applies `message` as ``update(_:)`` does and performs its decode effects at once with
  /// `decode`, as if the loop's executor had answered before the next message; returns the
  /// other effects. For replaying keys without a loop (`snapshot`, tests): the dashboard itself
  /// never decodes, its caller does.
  public mutating func update(
    _ message: DashboardMessage, decodingWith decode: (MailboxVersion) -> DecodedMessage
  ) -> [DashboardEffect] {
    var effects: [DashboardEffect] = []
    var messages = [message]
    while !messages.isEmpty {
      for effect in update(messages.removeFirst()) {
        if case .decodeRemote(let version) = effect {
          messages.append(.decoded(serial: version.serial, decode(version)))
          continue
        }
        guard case .decode(let directory, let identifier, let serial) = effect else {
          effects.append(effect)
          continue
        }
        guard let version = model.mailbox(identifier, in: directory)?.version(serial: serial) else {
          continue
        }
        messages.append(.decoded(serial: serial, decode(version)))
      }
    }
    return effects
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
      case .cancelTransfer(_, let pair, let role, let id):
        done = "cancelled transfer #\(id) of \(DisplayText.field(pair)) \(role.rawValue)"
      case .clearAll(let directory):
        done = "cleared every mailbox of \(DisplayText.field(displayPath(directory)))"
      case .replayVersion(let directory, let identifier, let serial, _, let toIdentifier, let transiting):
        // A serial is unique in the model, not the version's number in its mailbox: name the
        // version by when it was written, as the form does.
        let version = model.mailbox(identifier, in: directory)?.version(serial: serial)
        done =
          "replayed "
          + (version.map { "the version modified at \(modificationClock($0))" } ?? "a kept version")
          + " of \(identifier.displayField) to \(toIdentifier.displayField) (\(transiting))"
      case .replayEntry(let entry, _, let toIdentifier, let transiting):
        done = "replayed entry \(entry) to \(toIdentifier.displayField) (\(transiting))"
      case .sessionSend(let send): done = send.doneText
      case .route(let send): done = send.doneText
      case .answerInvitation(let answer):
        done =
          (answer.accepts ? "accepted" : "declined")
          + " the invitation from \(DisplayText.field(answer.from)) to "
          + DisplayText.field(answer.peer)
      default: done = effect.operation + " done"
      }
      report(done + (result.detail.map { ": " + DisplayText.escaped($0) } ?? ""), isError: false)
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
      report("read-only: \(binding.help) is disabled (\(readOnlyReason))", isError: true)
      return []
    }
    return perform(action)
  }

  mutating func quit() -> [DashboardEffect] {
    isQuitting = true
    return [.quit]
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
    case .effect(let effect)?: return checkedRemoteEffect(effect)
    case .report(let text, let isError)?: report(text, isError: isError)
    case .command(let line)?: return runCommand(line)
    case .filter(let text, let pane)?: setFilter(text.isEmpty ? nil : PaneFilter(text), pane: pane)
    }
    return []
  }

  /// Sets a pane's filter (typed, pasted or cleared), counted in ``filterApplications``; each
  /// pane matches it in its own update.
  mutating func setFilter(_ filter: PaneFilter?, pane: Pane) {
    filterApplications += 1
    if pane == .traffic {
      updateTraffic(.filter(filter))
    } else {
      updateTree(.filter(filter))
    }
  }

  /// A directory as the tree shows it: by its device-set label, else relative to the root it is
  /// under (not yet escaped).
  public func displayPath(_ directory: FileName) -> String {
    if let label = deviceSetLabels?.label(for: directory) { return label }
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
