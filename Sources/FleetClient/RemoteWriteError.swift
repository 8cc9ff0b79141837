import ArchivedValues
import FleetProtocol
import MQTTClient
import WormholeVocabulary

/// Why a remote write got no answer from a bridge: each message says what to do about it. A
/// bridge's refusal is not one of these: it is a ``RemoteReply`` with `ok` false.
public enum RemoteWriteError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The broker could not be reached or refused the connection.
  case broker(String)
  /// No bridge has ever published for the machine on this broker.
  case noBridge(machine: String)
  /// The machine's bridge is offline (stopped, or announced dead by its Last Will).
  case bridgeOffline(machine: String)
  /// The bridge is online but publishes no bridge info: an older, read-only bridge.
  case noBridgeInfo(machine: String)
  /// The bridge does not apply remote writes; its reason.
  case readOnly(machine: String, reason: String)
  /// No directory was given and the bridge's mailbox topics name none, or several.
  case directoryNeeded(machine: String, published: [FileName])
  /// The request would be refused by any bridge (see ``RemoteRequest/validate()``).
  case invalidRequest(FleetProtocolError)
  /// No reply came within the timeout: no bridge with remote writes listens any more, or the
  /// broker dropped the request (its in-flight and queue limits).
  case timedOut(machine: String, seconds: Double)

  public var description: String {
    switch self {
    case .broker(let reason): return reason
    case .noBridge(let machine):
      return
        "no bridge has published for machine \(DisplayText.field(machine)) on this broker (is its name right?)"
    case .bridgeOffline(let machine): return "the bridge of machine \(DisplayText.field(machine)) is offline"
    case .noBridgeInfo(let machine):
      return
        "the bridge of machine \(DisplayText.field(machine)) publishes no bridge info (an older, read-only bridge): restart it with --allow-remote-writes"
    case .readOnly(let machine, let reason):
      return
        "the bridge of machine \(DisplayText.field(machine)) refuses remote writes: \(DisplayText.escaped(reason))"
    case .directoryNeeded(let machine, let published):
      guard !published.isEmpty else {
        return "machine \(DisplayText.field(machine)) publishes no mailbox yet: give --directory D"
      }
      let names = published.map(\.displayField).joined(separator: ", ")
      return
        "machine \(DisplayText.field(machine)) publishes \(published.count) directories (\(names)): give --directory D"
    case .invalidRequest(let error): return "the request is not valid: \(error.description)"
    case .timedOut(let machine, let seconds):
      // The client cannot tell these apart: it names both (redteam3 L1).
      return
        "no reply from the bridge of machine \(DisplayText.field(machine)) within \(seconds) s: either no bridge "
        + "with --allow-remote-writes listens for it any more (its retained info says it does, but a bridge "
        + "killed or a broker restarted leaves that behind), or the broker dropped the request (its "
        + "max_inflight_messages and max_queued_messages limits, under a flood of requests); "
        + "a longer --remote-timeout helps a slow bridge"
    }
  }
}
