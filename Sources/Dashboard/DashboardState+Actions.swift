import ArchivedValues
import MailboxModel
import WormholeVocabulary

/// The keymap's actions: what a key or a `:` command does, routed to the pane with the focus.
extension DashboardState {
  /// Does what `action` asks, from a key or a `:` command.
  mutating func perform(_ action: DashboardAction) -> [DashboardEffect] {
    let layout = DashboardLayout(width: width, height: height)
    let page = max(layout.bodyHeight(of: focus), 1)
    if let effects = remoteAction(action) { return effects }
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
        let filter = text.isEmpty ? nil : PaneFilter(text)
        setFilter(filter, pane: pane)
        // Typed after `/`, the input line says why; given to `:filter`, only this does.
        if let error = filter?.error { report("filter not applied: \(error)", isError: true) }
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
    case .route: openRouteForm()
    case .answerInvitation(let accepts): return answerInvitation(accepts: accepts)
    case .peerSend(let targets, let mode, let data): return peerSend(to: targets, mode: mode, data: data)
    case .disconnectPeer: return disconnectPeer()
    case .cancelPeerResource: return cancelPeerResource()
    case .peerSendUsage:
      report(
        "send from a peer: select it, then :peer-send TO[,TO...] reliable|unreliable DATA (text, or @FILE for "
          + "a file's bytes, at most \(PeerDataSend.maximumFileBytes >> 20) MiB)", isError: false)
    case .sort(let order):
      updateTree(.sort(order ?? sort.next))
      fleetSortChanged()
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
          identifier: selection?.identifier?.lossyText ?? "", pairs: pairs, selection: selection))
      return []
    }
    let form = PassForm(
      directories: treePane.directoryPaths, directory: selectedDirectory, identifier: request.identifier,
      value: request.value, pairs: pairs, selection: selection)
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
    } else if let pair = selection?.pairName.flatMap(pair(named:)) {
      confirmCancel(in: pair)
      return
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
    guard let decoded = decodedVersions.message(version.serial) else {
      report(
        "copy: the value is still being decoded; nothing was copied, try again in a moment", isError: true)
      return []
    }
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
      switch selection {
      case .directory(let path)?: updateTree(.toggle(path))
      case .pairs?: updateTree(.togglePairs(.pairs))
      case .pair(let name)?: updateTree(.togglePairs(.pair(name)))
      case .peers?: updateTree(.togglePairs(.peers))
      case .peerService(let service)?: updateTree(.togglePairs(.peerService(service)))
      case .machine(let name)?: updateTree(.toggleFleet(.machine(name)))
      case .remoteDirectory(let name, let path)?:
        updateTree(.toggleFleet(.remoteDirectory(machine: name, path: path)))
      default: focus = .contents
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
}
