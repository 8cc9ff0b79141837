import PeerSession

/// How the `peer` verbs name a peer: `NAME` (every peer of that name), `NAME#xxxx`, the name and
/// the last four hex digits of the id, to pick one of several, the peer exactly as it is shown
/// (``PeerIdentity/description``: a name with control characters escaped and quoted, then
/// `#xxxx`), or `#xxxx` alone, by the id's digits whatever the name.
public enum PeerSelector {
  /// The peers of `peers` that `selector` names. A name that is itself `x#abcd` is matched
  /// whole first, then the shown form.
  public static func matches(_ selector: String, among peers: [PeerIdentity]) -> [PeerIdentity] {
    let named = peers.filter { $0.name.text.utf8.elementsEqual(selector.utf8) }
    if !named.isEmpty { return named }
    let shown = peers.filter { $0.description == selector }
    if !shown.isEmpty { return shown }
    guard let hash = selector.utf8.lastIndex(of: UInt8(ascii: "#")) else { return [] }
    let name = selector.utf8[..<hash]
    let digits = selector.utf8[selector.utf8.index(after: hash)...]
    guard digits.count == 4, let suffix = UInt64(String(decoding: digits, as: UTF8.self), radix: 16) else {
      return []
    }
    return peers.filter {
      ($0.name.text.utf8.elementsEqual(name) || name.isEmpty) && $0.id & 0xFFFF == suffix
    }
  }
}
