import DevicePairing
import Foundation
import KeyedArchive
import PeerSession

/// How `peer run` shows its events: one line each, text or JSON, everything escaped.
enum PeerLines {
  static func line(_ event: PeerEvent, json: Bool) -> String {
    json ? jsonLine(event) : textLine(event)
  }

  private static func textLine(_ event: PeerEvent) -> String {
    switch event {
    case .found(let peer, let info):
      let entries = info.sorted.map { DisplayText.escaped($0.key) + "=" + DisplayText.escaped($0.value) }
      return "found \(peer)" + (entries.isEmpty ? "" : " info " + entries.joined(separator: " "))
    case .lost(let peer): return "lost \(peer)"
    case .invitation(let invitation, let policy):
      return
        "invitation \(invitation.id) from \(invitation.peer) (session of \(invitation.sessionSize), \(policy.rawValue)): "
        + contextSummary(invitation.context)
    case .stateChanged(let peer, let state, let reason):
      return "state \(peer) \(state.rawValue)" + (reason.map { " (\($0))" } ?? "")
    case .data(let bytes, let peer, let mode):
      return "data from \(peer) \(mode.rawValue) \(bytes.count) bytes: \(dataSummary(bytes))"
    case .unreliableDropped(let peer, let count):
      return "dropped \(count) unreliable from \(peer)"
    case .resource(let change):
      let (word, progress, tail) = resource(change)
      let direction = progress.direction == .receiving ? "from" : "to"
      return
        "resource \(progress.id) \(DisplayText.field(progress.name)) \(direction) \(progress.peer) \(word) "
        + "\(progress.bytes)/\(progress.total) (\(Int(progress.fraction * 100))%)" + tail
    case .refused(let text): return "refused: \(DisplayText.escaped(text))"
    }
  }

  private static func resource(_ change: PeerResourceEvent) -> (String, PeerResourceProgress, String) {
    switch change {
    case .started(let progress): return ("started", progress, "")
    case .progressed(let progress): return ("progress", progress, "")
    case .finished(let progress, let location):
      return ("finished", progress, location.map { " at " + DisplayText.field($0) } ?? "")
    case .cancelled(let progress, let byPeer): return ("cancelled", progress, byPeer ? " by the peer" : "")
    case .failed(let progress, let reason): return ("failed", progress, ": " + DisplayText.escaped(reason))
    }
  }

  /// JSON data as its text; other bytes as hex (the first 32).
  private static func dataSummary(_ bytes: [UInt8]) -> String {
    if let text = String(validating: bytes, as: UTF8.self) { return DisplayText.escaped(text) }
    return "0x" + bytes.prefix(32).map { String(format: "%02x", $0) }.joined() + (bytes.count > 32 ? "…" : "")
  }

  private static func contextSummary(_ context: [UInt8]) -> String {
    if context.isEmpty { return "(no context)" }
    guard let decoded = try? KeyedArchiveInspector().inspect(Data(context)) else {
      return "(unreadable context)"
    }
    return decoded.root.summary(width: 4096)
  }

  private static func contextJSON(_ context: [UInt8]) -> String {
    if context.isEmpty { return "null" }
    guard let decoded = try? KeyedArchiveInspector().inspect(Data(context)) else { return "null" }
    return decoded.root.json()
  }

  private static func peerJSON(_ peer: PeerIdentity) -> String {
    "\"peer\":\(DisplayText.jsonString(peer.name.text)),\"id\":\"\(PeerDirectory.hex(peer.id))\""
  }

  private static func jsonLine(_ event: PeerEvent) -> String {
    switch event {
    case .found(let peer, let info):
      let entries = info.sorted.map {
        DisplayText.jsonString($0.key) + ":" + DisplayText.jsonString($0.value)
      }
      return "{\"event\":\"found\",\(peerJSON(peer)),\"info\":{\(entries.joined(separator: ","))}}"
    case .lost(let peer): return "{\"event\":\"lost\",\(peerJSON(peer))}"
    case .invitation(let invitation, let policy):
      return
        "{\"event\":\"invitation\",\(peerJSON(invitation.peer)),\"invitation\":\(invitation.id),"
        + "\"sessionSize\":\(invitation.sessionSize),\"policy\":\"\(policy.rawValue)\","
        + "\"context\":\(contextJSON(invitation.context))}"
    case .stateChanged(let peer, let state, let reason):
      return
        "{\"event\":\"state\",\(peerJSON(peer)),\"state\":\"\(state.rawValue)\",\"reason\":"
        + (reason.map { DisplayText.jsonString($0.description) } ?? "null") + "}"
    case .data(let bytes, let peer, let mode):
      let text = String(validating: bytes, as: UTF8.self).map(DisplayText.jsonString) ?? "null"
      return
        "{\"event\":\"data\",\(peerJSON(peer)),\"mode\":\"\(mode.rawValue)\",\"bytes\":\(bytes.count),\"text\":\(text)}"
    case .unreliableDropped(let peer, let count):
      return "{\"event\":\"dropped\",\(peerJSON(peer)),\"count\":\(count)}"
    case .resource(let change):
      let (word, progress, _) = resource(change)
      var line =
        "{\"event\":\"resource\",\"change\":\"\(word)\",\(peerJSON(progress.peer)),"
        + "\"resource\":\"\(progress.id)\",\"name\":\(DisplayText.jsonString(progress.name)),"
        + "\"direction\":\"\(progress.direction.rawValue)\",\"bytes\":\(progress.bytes),\"total\":\(progress.total),"
        + "\"fraction\":\(progress.fraction)"
      switch change {
      case .finished(_, let location?): line += ",\"location\":\(DisplayText.jsonString(location))"
      case .failed(_, let reason): line += ",\"reason\":\(DisplayText.jsonString(reason))"
      case .cancelled(_, let byPeer): line += ",\"byPeer\":\(byPeer)"
      default: break
      }
      return line + "}"
    case .refused(let text): return "{\"event\":\"refused\",\"text\":\(DisplayText.jsonString(text))}"
    }
  }
}
