import MailboxModel

/// What the footer offers: the keymap's bindings that do something where the focus and the
/// selection are now, each with the word for what it does there.
extension DashboardState {
  /// The footer's keys, in the keymap's order, before they are fitted to the line
  /// (``FooterEntry/fitting(_:columns:)``). A key that would only say "select …" where the
  /// selection is (`d` on a directory, `X` on a peer in no session) is left out; one that writes
  /// is kept, disabled, where writes are refused.
  public var footerEntries: [FooterEntry] {
    let remoteRefusal = isReadOnly ? nil : remoteWriteRefusal
    var entries: [FooterEntry] = []
    for binding in Keymap.bindings where binding.applies(in: focus) {
      guard let key = binding.keys.first, let word = binding.footer,
        let (standing, shown) = footerOffer(binding)
      else { continue }
      entries.append(
        FooterEntry(
          key: Keymap.name(of: key), word: shown ?? word,
          isDisabled: binding.writes && (isReadOnly || remoteRefusal != nil), standing: standing))
    }
    return entries
  }

  /// The standing of `binding` in the footer where the focus and selection are, with the word
  /// for it when it does something else here than its footer word says; `nil` where its key
  /// does nothing but say what to select.
  private func footerOffer(_ binding: KeyBinding) -> (FooterEntry.Standing, String?)? {
    switch binding.action {
    case .help, .quit: return (.always, nil)
    case .filter, .sort, .freeze, .pass: return (.general, nil)
    case .toggle:
      switch focus {
      case .mailboxes: return selection == nil ? nil : (.general, nil)
      // Enter folds a branch of the decoded value: the tree view of a mailbox.
      case .contents:
        return isMailboxSelected && contentsView == .tree && selectedRouteEntry == nil
          ? (.general, nil) : nil
      case .traffic: return nil
      }
    case .route:
      // The form needs a pair's device or a running peer; a bridged machine takes no route.
      guard !pairs.isEmpty || !peers.isEmpty, remoteTarget == nil else { return nil }
      return (.general, nil)
    case .answerInvitation:
      guard selectedPeer?.invitations.isEmpty == false else { return nil }
      return (.selection, nil)
    case .peerSendUsage:
      return selectedPeer?.connected.isEmpty == false ? (.selection, nil) : nil
    case .disconnectPeer:
      return selectedPeer?.connected.isEmpty == false ? (.selection, nil) : nil
    case .cancelPeerResource:
      return selectedPeer?.resources.isEmpty == false ? (.selection, nil) : nil
    case .clear:
      switch selection {
      case .mailbox?: return selectedMailbox?.isPresent == true ? (.selection, nil) : nil
      case .remoteMailbox?: return (.selection, nil)
      // On a device, `d` cancels the queued transfer under the contents cursor.
      case .device?:
        return selectedDevice?.device.queuedTransfers.isEmpty == false ? (.selection, "cancel") : nil
      default: return nil
      }
    case .clearAll:
      switch selection {
      case .directory(let path)?: return (presentCounts[path] ?? 0) > 0 ? (.selection, nil) : nil
      case .remoteDirectory?: return (.selection, nil)
      default: return nil
      }
    case .replay:
      if focus == .traffic {
        // Not the rows' identifiers: the footer is drawn every frame, over up to 10,000 entries.
        let shown =
          trafficPane.filter == nil ? !model.traffic.isEmpty : !trafficPane.filteredIdentifiers.isEmpty
        let hasEntry = trafficPane.selection != nil || shown
        return hasEntry ? (.selection, nil) : nil
      }
      return isMailboxSelected && versionToReplay != nil && selectedRouteEntry == nil
        ? (.selection, nil) : nil
    case .nextView: return isMailboxSelected && selectedRouteEntry == nil ? (.selection, nil) : nil
    case .mark:
      let inHistory = contentsView == .history || contentsView == .diff
      return isMailboxSelected && inHistory && !selectedVersions.isEmpty && selectedRouteEntry == nil
        ? (.selection, nil) : nil
    case .back, .messages, .repaint, .nextPane, .previousPane, .down, .up, .pageDown, .pageUp,
      .halfPageDown, .halfPageUp, .top, .bottom, .command, .peerSend, .copy, .theme:
      return nil
    }
  }

  /// Whether a mailbox (local or of a bridged machine) is selected in the tree.
  private var isMailboxSelected: Bool {
    switch selection {
    case .mailbox?, .remoteMailbox?: return true
    default: return false
    }
  }
}
