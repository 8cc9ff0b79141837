import WormholeVocabulary

/// The topics a bridge publishes on and listens to, under `wormhole/v1/machines/MACHINE/`, and
/// the reply topics of the clients that send it requests, under `wormhole/v1/clients/`:
///
/// ```
/// wormhole/v1/machines/MACHINE/presence                         "online" | "offline"  retained, QoS 1 (offline is the Last Will)
/// wormhole/v1/machines/MACHINE/bridge                           BridgeInfo JSON       retained, QoS 1 (empty: the bridge exited)
/// wormhole/v1/machines/MACHINE/mailboxes/DIRECTORY/IDENTIFIER   mailbox JSON          retained, QoS 1 (empty: cleared)
/// wormhole/v1/machines/MACHINE/traffic                          one entry's JSON line QoS 1, not retained
/// wormhole/v1/machines/MACHINE/backlog                          TrafficBacklog JSON   retained, QoS 1 (the recent entries)
/// wormhole/v1/machines/MACHINE/requests                         RemoteRequest JSON    QoS 1, not retained (clients publish)
/// wormhole/v1/clients/CLIENT/replies                            RemoteReply JSON      QoS 1, not retained (the bridge publishes)
/// ```
///
/// MACHINE, DIRECTORY (the directory's whole path) and IDENTIFIER are each one topic level,
/// percent-encoded byte by byte: every byte but `A-Z a-z 0-9 - . _ ~` is `%XX` (upper-case hex),
/// so `/`, `+`, `#`, `%`, spaces, control characters and bytes that are not UTF-8 cannot split a
/// level or act as a wildcard, and the encoding is reversible. CLIENT is encoded the same way.
public enum BridgeTopics {
  /// The prefix every bridged machine's topics share.
  public static let root = "wormhole/v1/machines"
  /// The filter that holds every machine's topics.
  public static let everything = root + "/#"
  /// The prefix of every client's reply topic: a request's `reply_to` must be under it.
  public static let clientsRoot = "wormhole/v1/clients"

  /// The retained `online`/`offline` of `machine`'s bridge.
  public static func presence(machine: String) -> String { "\(root)/\(encoded(machine))/presence" }

  /// The retained ``BridgeInfo`` of `machine`'s bridge.
  public static func bridge(machine: String) -> String { "\(root)/\(encoded(machine))/bridge" }

  /// Where `machine`'s bridge publishes its traffic entries.
  public static func traffic(machine: String) -> String { "\(root)/\(encoded(machine))/traffic" }

  /// The retained ``TrafficBacklog`` of `machine`'s bridge: its recent traffic entries.
  public static func backlog(machine: String) -> String { "\(root)/\(encoded(machine))/backlog" }

  /// Where clients publish ``RemoteRequest``s for `machine`'s bridge.
  public static func requests(machine: String) -> String { "\(root)/\(encoded(machine))/requests" }

  /// The filter that holds every mailbox topic of `machine`.
  public static func mailboxes(machine: String) -> String { "\(root)/\(encoded(machine))/mailboxes/#" }

  /// The retained topic of one mailbox of `machine`.
  public static func mailbox(machine: String, directory: FileName, identifier: FileName) -> String {
    "\(root)/\(encoded(machine))/mailboxes/\(encoded(directory.bytes))/\(encoded(identifier.bytes))"
  }

  /// The topic a client with the identifier `client` receives its ``RemoteReply``s on.
  public static func replies(client: String) -> String { "\(clientsRoot)/\(encoded(client))/replies" }

  /// The client a reply topic belongs to, or `nil` unless `topic` is exactly
  /// `wormhole/v1/clients/CLIENT/replies` with CLIENT one non-empty encoded level (so a request
  /// cannot make a bridge publish anywhere else, a machine's topics or a wildcard included).
  public static func client(ofReplyTopic topic: String) -> String? {
    let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
    guard levels.count == 5, levels[0] == "wormhole", levels[1] == "v1", levels[2] == "clients",
      levels[4] == "replies", let bytes = decoded(levels[3]), !bytes.isEmpty,
      let client = String(validating: bytes, as: UTF8.self)
    else { return nil }
    return client
  }

  /// What a topic under ``root`` is, or `nil` for one that is not a bridge's (a malformed level
  /// included: everything from the broker is hostile).
  public enum Kind: Sendable, Equatable {
    case presence(machine: String)
    case bridge(machine: String)
    case traffic(machine: String)
    case backlog(machine: String)
    case requests(machine: String)
    case mailbox(machine: String, directory: FileName, identifier: FileName)
  }

  /// What `topic` is, or `nil` when it is not one of a bridge's topics.
  public static func kind(of topic: String) -> Kind? {
    let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
    guard levels.count >= 5, levels[0] == "wormhole", levels[1] == "v1", levels[2] == "machines",
      let machineBytes = decoded(levels[3]), let machine = String(validating: machineBytes, as: UTF8.self),
      !machine.isEmpty
    else { return nil }
    switch (levels[4], levels.count) {
    case ("presence", 5): return .presence(machine: machine)
    case ("bridge", 5): return .bridge(machine: machine)
    case ("traffic", 5): return .traffic(machine: machine)
    case ("backlog", 5): return .backlog(machine: machine)
    case ("requests", 5): return .requests(machine: machine)
    case ("mailboxes", 7):
      guard let directory = decoded(levels[5]), let identifier = decoded(levels[6]), !directory.isEmpty,
        !identifier.isEmpty
      else { return nil }
      return .mailbox(
        machine: machine, directory: FileName(bytes: directory), identifier: FileName(bytes: identifier))
    default: return nil
    }
  }

  /// The longest machine name in UTF-8 bytes (`bridge --name` takes 1 to 255).
  public static let maximumMachineByteCount = 255

  /// Why a topic's names are not ones a bridge publishes, or `nil` when they are: a machine name
  /// of 1 to ``maximumMachineByteCount`` bytes without NUL; a mailbox's directory an absolute
  /// path without NUL of at most ``RemoteRequest/maximumDirectoryByteCount`` bytes, and its
  /// identifier one a local mailbox can have (`MessageIdentifier`'s rules). ``kind(of:)`` leaves
  /// them to this, so that a bridge still recognizes (and removes) junk under its own topics.
  public static func problem(with kind: Kind) -> String? {
    let machine: String
    switch kind {
    case .presence(let name), .bridge(let name), .traffic(let name), .backlog(let name), .requests(let name),
      .mailbox(let name, _, _):
      machine = name
    }
    let length = machine.utf8.count
    guard length <= maximumMachineByteCount else {
      return "a machine name of \(length) bytes, above \(maximumMachineByteCount)"
    }
    guard !machine.utf8.contains(0) else { return "a machine name that contains a NUL character" }
    guard case .mailbox(_, let directory, let identifier) = kind else { return nil }
    let path = directory.bytes
    guard path.first == UInt8(ascii: "/") else { return "a mailbox directory that is not an absolute path" }
    guard !path.contains(0) else { return "a mailbox directory that contains a NUL character" }
    guard path.count <= RemoteRequest.maximumDirectoryByteCount else {
      return "a mailbox directory of \(path.count) bytes, above \(RemoteRequest.maximumDirectoryByteCount)"
    }
    return MessageIdentifier.problem(withBytes: identifier.bytes).map {
      "a mailbox identifier that cannot name a mailbox: \($0)"
    }
  }

  /// `text`'s UTF-8 bytes as one topic level.
  public static func encoded(_ text: String) -> String { encoded(Array(text.utf8)) }

  /// `bytes` as one topic level: unreserved bytes as they are, every other one `%XX`.
  public static func encoded(_ bytes: [UInt8]) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    for byte in bytes {
      if isUnreserved(byte) {
        out.append(byte)
      } else {
        out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The bytes of one encoded level, or `nil` when it is not exactly what ``encoded(_:)-([UInt8])``
  /// writes (a reserved byte left bare, a bad escape, lower-case hex).
  public static func decoded(_ level: Substring) -> [UInt8]? {
    var out: [UInt8] = []
    var iterator = level.utf8.makeIterator()
    while let byte = iterator.next() {
      if isUnreserved(byte) {
        out.append(byte)
        continue
      }
      guard byte == UInt8(ascii: "%"), let high = iterator.next().flatMap(hexValue),
        let low = iterator.next().flatMap(hexValue)
      else { return nil }
      let value = high << 4 | low
      guard !isUnreserved(value) else { return nil }
      out.append(value)
    }
    return out
  }

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "~"):
      return true
    default: return false
    }
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
