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
  public mutating func update(_ message: DashboardMessage) -> [DashboardEffect] {
    switch message {
    case .resize(let width, let height):
      self.width = max(width, 0)
      self.height = max(height, 0)
      scrollTreeToSelection()
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
    case .effectFinished(let description, let error):
      if let error {
        report(DisplayText.escaped(description) + " failed: " + DisplayText.escaped(error), isError: true)
      } else {
        report(DisplayText.escaped(description), isError: false)
      }
      return []
    case .themeLoaded(let name, let error):
      if let error {
        report(DisplayText.escaped(error), isError: true)
      } else {
        themeName = name
        report("theme " + DisplayText.escaped(name), isError: false)
      }
      return []
    case .key(let key):
      return handle(key)
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
      if offset >= 0 { selectRow(treeScroll + offset) }
    case .contents:
      let offset = row - layout.contents.y - 2
      if offset >= 0 { setContentsCursor(contentsScroll + offset) }
    case .traffic:
      let offset = row - layout.traffic.y - 2
      let visible = layout.bodyHeight(of: .traffic)
      let identifiers = trafficIdentifiers
      guard offset >= 0, !identifiers.isEmpty else { return }
      // The rows shown end at the selection (or the newest): the same window the view draws.
      let last =
        trafficSelection.flatMap { identifiers.lastIndex(of: $0) }.map {
          max($0, min(identifiers.count - 1, $0 + visible / 2))
        } ?? identifiers.count - 1
      let first = max(last - visible + 1, 0)
      if first + offset <= last { trafficSelection = identifiers[first + offset] }
    }
  }

  mutating func report(_ text: String, isError: Bool) {
    status = StatusMessage(text, isError: isError, expires: now + Self.statusMilliseconds)
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
        presence = (directory, identifier, model.mailbox(identifier, in: directory)?.isOnDisk ?? false)
      default: break
      }
      defer {
        if let presence {
          let after = model.mailbox(presence.identifier, in: presence.directory)?.isOnDisk ?? false
          if after != presence.before { presentCounts[presence.directory, default: 0] += after ? 1 : -1 }
        }
      }
      for effect in model.apply(event, at: time) {
        switch effect {
        case .tick(let at): effects.append(.wake(atMilliseconds: at))
        case .trafficAppended(let entries):
          rate.record(entries.count, at: time)
          if let trafficFilter {
            filteredTraffic += entries.filter { trafficFilter.matches(trafficText($0)) }.map(\.id)
          }
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
      rebuildTree()
    } else {
      for (directory, identifiers) in changed { treeChanged(directory: directory, identifiers: identifiers) }
    }
    if trafficFilter != nil, let first = model.traffic.first?.id {
      // Entries dropped from the model's front are gone from the filtered list too.
      if let index = filteredTraffic.firstIndex(where: { $0 >= first }), index > 0 {
        filteredTraffic.removeFirst(index)
      }
    }
    if !hasMoved, selection == nil || selection == directoryPaths.first.map(TreeNodeID.directory),
      treeRowCount > 1
    {
      selectRow(1)
    } else {
      resyncSelection()
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
      return []
    }
    guard let binding = Keymap.binding(for: key, in: focus) else { return [] }
    if binding.writes && isReadOnly {
      report("read-only: \(binding.help) is disabled (started with --read-only)", isError: true)
      return []
    }
    return perform(binding.action)
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
    case .back:
      if focus == .mailboxes, mailboxFilter != nil {
        mailboxFilter = nil
        refilter()
        resyncSelection()
      } else if focus == .traffic, trafficFilter != nil || trafficSelection != nil {
        if trafficFilter != nil { trafficFilter = nil } else { trafficSelection = nil }
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
    case .filter:
      let current = focus == .traffic ? trafficFilter?.text : mailboxFilter?.text
      overlay = .filter(TextField(current ?? ""), pane: focus == .traffic ? .traffic : .mailboxes)
    case .command: overlay = .command(TextField())
    case .pass:
      overlay = .pass(
        PassForm(
          directories: directoryPaths, directory: selectedDirectory,
          identifier: selection?.identifier?.lossyText ?? ""))
    case .clear:
      guard case .mailbox(let directory, let identifier)? = selection, selectedMailbox?.isPresent == true
      else {
        report("select a mailbox that holds a message to clear it", isError: true)
        return []
      }
      overlay = .confirm(
        Confirmation(
          question: "Clear \(identifier.displayField)? Its message is removed from the disk.",
          effect: .clear(directory: directory, identifier: identifier)))
    case .clearAll:
      guard let directory = selectedDirectory else {
        report("select a directory to clear its mailboxes", isError: true)
        return []
      }
      let count = presentCounts[directory] ?? 0
      overlay = .confirm(
        Confirmation(
          question: "Clear all \(count) mailboxes of \(DisplayText.field(displayPath(directory)))?",
          effect: .clearAll(directory: directory)))
    case .replay: openReplay()
    case .sort:
      sort = sort.next
      rebuildTree()
      resyncSelection()
      report("sorted by \(sort.rawValue)", isError: false)
    case .freeze: return toggleFreeze()
    case .copy:
      guard let version = selectedMailbox?.current else {
        report("select a mailbox that holds a message to copy it", isError: true)
        return []
      }
      report("copied the value as JSON", isError: false)
      return [.copyToClipboard(model.decoded(version).json)]
    case .cycleTheme: return [.loadTheme("+next")]
    case .nextView:
      contentsView = contentsView.next
      contentsCursor = contentsView == .history ? historyCursor : 0
      contentsScroll = 0
      clampContents()
    case .mark:
      let versions = selectedVersions
      if versions.indices.contains(historyCursor) {
        let serial = versions[historyCursor].serial
        markedSerial = markedSerial == serial ? nil : serial
        report(
          markedSerial == nil ? "mark removed" : "marked: the diff view compares against this version",
          isError: false)
      }
    }
    return []
  }

  private mutating func move(by delta: Int) {
    switch focus {
    case .mailboxes: selectRow(selectedRow + delta)
    case .contents:
      setContentsCursor(contentsCursor + delta)
    case .traffic: moveTraffic(by: delta)
    }
  }

  private mutating func move(to row: Int) {
    switch focus {
    case .mailboxes: selectRow(row == .max ? treeRowCount - 1 : row)
    case .contents: setContentsCursor(row == .max ? Int.max / 2 : row)
    case .traffic:
      if row == .max {
        trafficSelection = nil
      } else {
        trafficSelection = trafficIdentifiers.first
      }
    }
  }

  mutating func setContentsCursor(_ row: Int) {
    contentsCursor = row
    clampContents()
    if contentsView == .history { historyCursor = contentsCursor }
  }

  mutating func clampContents() {
    let count = contentsLines().count
    contentsCursor = min(max(contentsCursor, 0), max(count - 1, 0))
    let visible = max(DashboardLayout(width: width, height: height).bodyHeight(of: .contents), 1)
    if contentsCursor < contentsScroll { contentsScroll = contentsCursor }
    if contentsCursor >= contentsScroll + visible { contentsScroll = contentsCursor - visible + 1 }
    contentsScroll = max(min(contentsScroll, max(count - visible, 0)), 0)
    if contentsView == .history { historyCursor = contentsCursor }
  }

  private mutating func toggle() {
    switch focus {
    case .mailboxes:
      if case .directory(let path)? = selection {
        if collapsedDirectories.contains(path) {
          collapsedDirectories.remove(path)
        } else {
          collapsedDirectories.insert(path)
        }
        resyncSelection()
      } else {
        focus = .contents
      }
    case .contents:
      let lines = contentsLines()
      guard lines.indices.contains(contentsCursor), lines[contentsCursor].isBranch,
        let path = lines[contentsCursor].path
      else { return }
      if collapsedPaths.contains(path) { collapsedPaths.remove(path) } else { collapsedPaths.insert(path) }
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

  private mutating func openReplay() {
    if focus == .traffic {
      guard let id = trafficSelection ?? trafficIdentifiers.last, let entry = model.trafficEntry(id) else {
        report("no traffic entry to replay", isError: true)
        return
      }
      overlay = .replay(
        ReplayForm(
          source: .entry(entry.id),
          title: "Replay \(entry.kind.rawValue) \(entry.identifier.displayField)",
          directory: entry.directory, identifier: entry.identifier.lossyText, transiting: entry.transiting))
      return
    }
    guard case .mailbox(let directory, let identifier)? = selection, let version = versionToReplay else {
      report("select a mailbox version (v for history) or a traffic entry to replay", isError: true)
      return
    }
    overlay = .replay(
      ReplayForm(
        source: .version(directory: directory, identifier: identifier, serial: version.serial),
        title:
          "Replay the version of \(Formatting.clock(version.observedMilliseconds)) of \(identifier.displayField)",
        directory: directory, identifier: identifier.lossyText, transiting: nil))
  }

  // MARK: Overlays

  private mutating func handle(_ key: Key, in overlay: Overlay) -> [DashboardEffect] {
    if key == .control("c") { return quit() }
    switch overlay {
    case .help(let scroll):
      switch key {
      case .down, .character("j"): self.overlay = .help(scroll: scroll + 1)
      case .up, .character("k"): self.overlay = .help(scroll: max(scroll - 1, 0))
      case .pageDown, .control("d"): self.overlay = .help(scroll: scroll + 10)
      case .pageUp, .control("u"): self.overlay = .help(scroll: max(scroll - 10, 0))
      default: self.overlay = nil
      }
    case .confirm(let confirmation):
      switch key {
      case .character("y"), .character("Y"), .enter:
        self.overlay = nil
        return [confirmation.effect]
      case .character("n"), .character("N"), .escape, .character("q"):
        self.overlay = nil
        report("cancelled", isError: false)
      default: break
      }
    case .pass(var form):
      if key == .escape {
        self.overlay = nil
        return []
      }
      let (effect, done) = form.handle(key)
      self.overlay = done ? nil : .pass(form)
      if let effect { return [effect] }
    case .replay(var form):
      if key == .escape {
        self.overlay = nil
        report("replay cancelled", isError: false)
        return []
      }
      let (effect, done) = form.handle(key)
      self.overlay = done ? nil : .replay(form)
      if let effect { return [effect] }
    case .command(var field):
      switch key {
      case .escape: self.overlay = nil
      case .enter:
        self.overlay = nil
        return runCommand(field.text)
      default:
        field.handle(key)
        self.overlay = .command(field)
      }
    case .filter(var field, let pane):
      switch key {
      case .escape:
        self.overlay = nil
        setFilter(nil, pane: pane)
      case .enter:
        self.overlay = nil
      default:
        field.handle(key)
        self.overlay = .filter(field, pane: pane)
        setFilter(field.text.isEmpty ? nil : PaneFilter(field.text), pane: pane)
      }
    }
    return []
  }

  mutating func setFilter(_ filter: PaneFilter?, pane: Pane) {
    if pane == .traffic {
      trafficFilter = filter
      filteredTraffic =
        filter.map { filter in model.traffic.filter { filter.matches(trafficText($0)) }.map(\.id) } ?? []
      if let selected = trafficSelection, !trafficIdentifiers.contains(selected) { trafficSelection = nil }
    } else {
      mailboxFilter = filter
      refilter()
      resyncSelection()
    }
  }

  /// The identifiers of the traffic rows shown, oldest first.
  public var trafficIdentifiers: [UInt64] {
    trafficFilter != nil ? filteredTraffic : model.traffic.map(\.id)
  }

  private mutating func moveTraffic(by delta: Int) {
    let identifiers = trafficIdentifiers
    guard !identifiers.isEmpty else { return }
    let current = trafficSelection.flatMap { identifiers.firstIndex(of: $0) } ?? identifiers.count
    let target = min(max(current + delta, 0), identifiers.count)
    trafficSelection = target >= identifiers.count ? nil : identifiers[target]
  }

  /// The text a traffic filter is matched against: what the row shows.
  func trafficText(_ entry: TrafficEntry) -> String {
    [
      entry.kind.rawValue, entry.identifier.lossyText, entry.transiting ?? "", entry.sender ?? "",
      entry.error ?? "",
    ]
    .joined(separator: " ")
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

  /// Runs a `:` command line.
  mutating func runCommand(_ line: String) -> [DashboardEffect] {
    let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
    guard let name = words.first else { return [] }
    switch name {
    case "q", "quit": return quit()
    case "help": return perform(.help)
    case "freeze": return perform(.freeze)
    case "pass":
      guard words.count >= 2 else {
        report(":pass needs an identifier (and a JSON value): :pass ID JSON", isError: true)
        return []
      }
      guard !isReadOnly else {
        report("read-only: pass is disabled (started with --read-only)", isError: true)
        return []
      }
      var form = PassForm(directories: directoryPaths, directory: selectedDirectory, identifier: words[1])
      form.value = TextField(words.count > 2 ? words[2] : "")
      if let problem = form.problem {
        report(":pass: " + DisplayText.escaped(problem), isError: true)
        return []
      }
      guard let directory = form.directory, case .success(let value) = form.parsedValue else { return [] }
      return [
        .pass(directory: directory, identifier: FileName(words[1]), value: value, transiting: form.transiting)
      ]
    case "clear":
      guard !isReadOnly else {
        report("read-only: clear is disabled (started with --read-only)", isError: true)
        return []
      }
      guard let directory = selectedDirectory else {
        report(":clear needs a selected directory", isError: true)
        return []
      }
      let identifier =
        words.count >= 2 ? FileName(words.dropFirst().joined(separator: " ")) : selection?.identifier
      guard let identifier else {
        report(":clear needs an identifier: :clear ID", isError: true)
        return []
      }
      overlay = .confirm(
        Confirmation(
          question: "Clear \(identifier.displayField)? Its message is removed from the disk.",
          effect: .clear(directory: directory, identifier: identifier)))
    case "clear-all": return perform(.clearAll)
    case "replay":
      guard !isReadOnly else {
        report("read-only: replay is disabled (started with --read-only)", isError: true)
        return []
      }
      openReplay()
    case "theme":
      guard words.count >= 2 else {
        report(":theme needs a name or a path", isError: true)
        return []
      }
      return [.loadTheme(words.dropFirst().joined(separator: " "))]
    case "sort":
      guard words.count >= 2, let order = SortOrder(rawValue: words[1]) else {
        report(":sort takes name, recency or activity", isError: true)
        return []
      }
      sort = order
      rebuildTree()
      resyncSelection()
    case "filter":
      setFilter(words.count >= 2 ? PaneFilter(words.dropFirst().joined(separator: " ")) : nil, pane: focus)
    default:
      report("unknown command :\(DisplayText.escaped(name)) (try :help)", isError: true)
    }
    return []
  }
}
