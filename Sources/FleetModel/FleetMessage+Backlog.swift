import ArchivedValues
import FleetProtocol
import MailboxModel

extension FleetMessage {
  /// A bridge's retained ``TrafficBacklog``, checked as a whole: dropped when it is not the
  /// bridge's JSON (or above its limits), or when one entry is not a traffic entry. Empty: the
  /// bridge has no backlog (ignored).
  static func backlog(_ input: FleetInput, machine: String, at now: Int64) -> FleetMessage {
    guard !input.payload.isEmpty else { return .ignored }
    let objects: [[ArchivedEntry]]
    do throws(FleetProtocolError) {
      objects = try TrafficBacklog.entries(in: input.payload)
    } catch {
      return .dropped(
        reason: "a traffic backlog that is not the bridge's: \(DisplayText.escaped(error.description))")
    }
    var entries: [TrafficEntry] = []
    entries.reserveCapacity(objects.count)
    for object in objects {
      guard let entry = trafficEntry(FleetJSON(entries: object), machine: machine, at: now) else {
        return .dropped(reason: "a traffic backlog with an entry that is not a traffic entry")
      }
      entries.append(entry)
    }
    return .trafficBacklog(machine: machine, entries)
  }
}
