import MailboxModel

/// The traffic pane inside the dashboard: its messages get the model's traffic stream.
extension DashboardState {
  /// Applies `message` to the traffic pane over the model's stream.
  mutating func updateTraffic(_ message: TrafficPaneState.Message) {
    trafficPane.update(message, traffic: model.traffic)
  }

  /// The selected traffic entry; `nil` follows the newest.
  public var trafficSelection: UInt64? { trafficPane.selection }
  public var trafficFilter: PaneFilter? { trafficPane.filter }

  /// The identifiers of the traffic rows shown, oldest first.
  public var trafficIdentifiers: [UInt64] { trafficPane.identifiers(in: model.traffic) }
}
