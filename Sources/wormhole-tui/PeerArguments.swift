import DevicePairing
import KeyedArchive
import PeerSession
import Wormhole

/// What the `peer` actions share: the home, service types and names checked at the boundary,
/// and the running peer `--from` names.
enum PeerArguments {
  static func home(_ arguments: ParsedArguments) -> String {
    arguments.value(.home) ?? WormholeHome.defaultPath(environment: WormholeHome.currentEnvironment())
  }

  /// The service type, or a usage error with the rule it breaks.
  static func service(_ text: String) throws(CommandError) -> ServiceType {
    do throws(ServiceTypeError) { return try ServiceType(text) } catch { throw .usage(error.description) }
  }

  /// The peer name, or a usage error with the rule it breaks.
  static func name(_ text: String) throws(CommandError) -> PeerName {
    do throws(PeerNameError) { return try PeerName(text) } catch { throw .usage(error.description) }
  }

  /// Checks a selector (`NAME` or `NAME#xxxx`): the name must keep the rule.
  static func selector(_ text: String) throws(CommandError) -> String {
    if PeerName.brokenRule(in: text) == nil { return text }
    if let hash = text.utf8.lastIndex(of: UInt8(ascii: "#")),
      text.utf8.distance(from: hash, to: text.utf8.endIndex) == 5,
      PeerName.brokenRule(in: String(decoding: text.utf8[..<hash], as: UTF8.self)) == nil
    {
      return text
    }
    _ = try name(text)
    return text
  }

  /// The running peer `--from` (or `option`) names (narrowed by `--service`): refused when none
  /// runs (3) or several share the name (2, with their ids).
  static func from(_ arguments: ParsedArguments, action: String, option: Option = .from) throws(CommandError)
    -> RunningPeer
  {
    guard let text = arguments.value(option) else {
      throw .usage("peer \(action) needs --\(option.name) NAME")
    }
    let selector = try selector(text)
    let service = try arguments.value(.service).map { text throws(CommandError) in try self.service(text) }
    let running = RunningPeer.all(home: home(arguments), service: service)
    let matches = PeerSelector.matches(selector, among: running.map(\.identity))
    let chosen = running.filter { peer in matches.contains(peer.identity) }
    if chosen.count == 1 { return chosen[0] }
    if chosen.isEmpty {
      throw .failure(
        "no running peer \(DisplayText.field(selector))\(service.map { " of service \($0.text)" } ?? ""): "
          + "start it with peer run")
    }
    throw .usage(
      "the name \(DisplayText.field(selector)) is ambiguous: "
        + chosen.map { "\($0.identity) (\($0.directory.service.text), pid \($0.pid))" }.joined(
          separator: ", ")
        + "; pick one as NAME#xxxx")
  }

  /// `--to`: one selector, or with `list` several, comma-separated (send).
  static func to(_ arguments: ParsedArguments, action: String, list: Bool = false) throws(CommandError)
    -> String
  {
    guard let text = arguments.value(.to) else { throw .usage("peer \(action) needs --to NAME") }
    if !list { return try selector(text) }
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
      _ = try selector(String(part))
    }
    return text
  }
}
