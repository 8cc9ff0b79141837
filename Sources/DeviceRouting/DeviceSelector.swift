import ArchivedValues
import DeviceSession

/// Which running device a push or a deep link goes to, as `--device` spells it: `PAIR:ROLE`
/// (`r1:phone`) for one of a pair's devices, or `peer:NAME` for a running peer.
///
/// - `peer:` first always means a peer; the rest is its name (not empty, at most
///   ``maximumPeerNameLength`` bytes of UTF-8, the rule of the peers' names).
/// - Otherwise the text is split at its last `:` (a pair name may hold `:`, a role never does):
///   the pair's name, by ``PairName``'s rules, and the role, `phone` or `watch`.
/// - `PAIR/ROLE` is accepted too, as traffic records write devices (a pair name never holds `/`):
///   it is how a pair that is named `peer` is reached (`peer/phone`).
public enum DeviceSelector: Sendable, Hashable, CustomStringConvertible {
  /// One of a pair's two devices.
  case device(DeviceAddress)
  /// A running peer, by its name.
  case peer(name: String)

  /// The longest peer name, in UTF-8 bytes (as `MCPeerID` allows).
  public static let maximumPeerNameLength = 63
  /// What starts a selector of a peer.
  public static let peerPrefix = "peer:"

  /// The selector `text` names, or ``DeviceSelectorError`` saying what is wrong with it.
  public init(_ text: String) throws(DeviceSelectorError) {
    if text.hasPrefix(Self.peerPrefix) {
      let name = String(text.dropFirst(Self.peerPrefix.count))
      if let reason = Self.peerNameProblem(name) {
        throw DeviceSelectorError(selector: text, reason: "the peer name is not valid: \(reason)")
      }
      self = .peer(name: name)
      return
    }
    let separator = text.firstIndex(of: "/") ?? text.lastIndex(of: ":")
    guard let separator else {
      throw DeviceSelectorError(
        selector: text, reason: "expected PAIR:ROLE (as in r1:phone) or peer:NAME")
    }
    let pairText = String(text[..<separator])
    let roleText = String(text[text.index(after: separator)...])
    guard let role = DeviceRole(rawValue: roleText) else {
      let roles = DeviceRole.allCases.map(\.rawValue).joined(separator: " or ")
      throw DeviceSelectorError(
        selector: text, reason: "the role must be \(roles), not \(DisplayText.quoted(roleText))")
    }
    let pair: PairName
    do {
      pair = try PairName(pairText)
    } catch {
      throw DeviceSelectorError(selector: text, reason: "the pair name is not valid: \(error.reason)")
    }
    self = .device(DeviceAddress(pair: pair, role: role))
  }

  /// Why `name` cannot name a peer, or `nil` when it can: a peer name is not empty and at most
  /// ``maximumPeerNameLength`` bytes of UTF-8, optionally followed by `#xxxx` (the last four hex
  /// digits of one peer's id, as the peer verbs pick one of several peers of a name), which does
  /// not count towards the length.
  public static func peerNameProblem(_ name: String) -> String? {
    if name.isEmpty { return "it is empty" }
    let length = name.utf8.count
    if length <= maximumPeerNameLength { return nil }
    let bytes = Array(name.utf8)
    let isHex = { (byte: UInt8) in
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
    if bytes.count > 5, bytes[bytes.count - 5] == UInt8(ascii: "#"), bytes.suffix(4).allSatisfy(isHex),
      bytes.count - 5 <= maximumPeerNameLength
    {
      return nil
    }
    return "it is \(length) bytes long; at most \(maximumPeerNameLength) are allowed (and #xxxx after them)"
  }

  /// The selector as `--device` spells it (`r1:phone`, `peer:desk`); a pair named `peer` as
  /// `peer/phone`, so that the text parses back to the same selector. Raw: show it escaped.
  public var description: String {
    switch self {
    case .device(let address):
      let separator = (address.pair.text + ":").hasPrefix(Self.peerPrefix) ? "/" : ":"
      return address.pair.text + separator + address.role.rawValue
    case .peer(let name): return Self.peerPrefix + name
    }
  }
}

/// A `--device` value that names no device. `selector` is the raw text: show it escaped.
public struct DeviceSelectorError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The text as given (not escaped).
  public var selector: String
  /// What is wrong with it, in words (parts of the text it quotes are escaped).
  public var reason: String

  public var description: String { "not a device: \(reason)" }
}
