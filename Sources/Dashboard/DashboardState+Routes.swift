import ArchivedValues
import MailboxModel
import WormholeVocabulary

/// Pushes and deep links: the route form (`u`), the replay of a push or deep-link traffic entry
/// (`r`), and the entry the contents pane shows.
extension DashboardState {
  /// The push or deep link selected in the traffic pane, which the contents pane shows while
  /// the focus is on the traffic or the contents pane; `nil` when following the newest entry
  /// or when another kind is selected.
  var selectedRouteEntry: TrafficEntry? {
    guard focus != .mailboxes, let id = trafficPane.selection, let entry = model.trafficEntry(id),
      entry.isRouted
    else { return nil }
    return entry
  }

  /// `u`: the route form, on the device or peer the selection names.
  mutating func openRouteForm() {
    overlay = .route(
      RouteForm(
        pairs: pairs, peers: peers, selection: selection, directory: selectedDirectory,
        directories: treePane.directoryPaths))
  }

  /// `r` on a push or a deep link: the route form with what it carried, to the device or peer
  /// it went to (switchable to any pair's device or running peer); refused, with the reason,
  /// when the record did not keep it.
  mutating func openRouteReplay(_ entry: TrafficEntry) {
    let isPush = entry.kind.rawValue == TrafficKind.push.rawValue
    guard let payload = entry.payload else {
      report(
        "replay refused: traffic entry \(entry.id)'s \(isPush ? "payload" : "URL") was not kept "
          + "(\(Formatting.size(entry.size)); a record keeps at most \(TrafficRecord.maximumPayloadBytes) bytes)",
        isError: true)
      return
    }
    let subject = entry.routeSubject.map { " " + DisplayText.quoted($0) } ?? ""
    overlay = .route(
      RouteForm(
        kind: isPush ? .push : .deepLink, text: payload,
        title: "Replay \(isPush ? "push" : "deep link")\(subject) (traffic entry \(entry.id))",
        replayOf: entry.id, pairs: pairs, peers: peers, selection: nil, directory: entry.directory,
        directories: treePane.directoryPaths, device: entry.device))
  }
}
