import WormholeVocabulary

/// What a topic under `wormhole/v1/machines/` is, decoded as the bridge encodes it: MACHINE,
/// DIRECTORY and IDENTIFIER are each one level, percent-encoded byte by byte (every byte but
/// `A-Z a-z 0-9 - . _ ~` as `%XX`, upper-case hex). A level that is not exactly what the bridge
/// writes (a reserved byte left bare, a bad or lower-case escape) makes the topic a stranger's.
public enum FleetTopic: Sendable, Hashable {
  /// `…/MACHINE/presence`: `online` or `offline`, retained (offline is the Last Will).
  case presence(machine: String)
  /// `…/MACHINE/traffic`: one traffic entry's JSON line, live.
  case traffic(machine: String)
  /// `…/MACHINE/mailboxes/DIRECTORY/IDENTIFIER`: the mailbox's payload, retained (empty: gone).
  case mailbox(machine: String, directory: FileName, identifier: FileName)
  /// `…/MACHINE/bridge`: what the bridge accepts (`BridgeInfo`), retained.
  case bridgeInfo(machine: String)
  /// `…/MACHINE/requests`: remote requests to the bridge (another dashboard's), not state.
  case requests(machine: String)

  /// The prefix every bridged machine's topics share.
  public static let root = "wormhole/v1/machines"
  /// The filter that holds every machine's topics.
  public static let everything = root + "/#"

  /// The machine the topic belongs to.
  public var machine: String {
    switch self {
    case .presence(let machine), .traffic(let machine), .mailbox(let machine, _, _), .bridgeInfo(let machine),
      .requests(let machine):
      return machine
    }
  }

  /// The topic's meaning, or `nil` for one that is not a bridge's.
  public init?(_ topic: String) {
    let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
    guard levels.count >= 5, levels[0] == "wormhole", levels[1] == "v1", levels[2] == "machines",
      let machineBytes = Self.decoded(levels[3]), let machine = String(validating: machineBytes, as: UTF8.self),
      !machine.isEmpty
    else { return nil }
    switch (levels[4], levels.count) {
    case ("presence", 5): self = .presence(machine: machine)
    case ("traffic", 5): self = .traffic(machine: machine)
    case ("bridge", 5): self = .bridgeInfo(machine: machine)
    case ("requests", 5): self = .requests(machine: machine)
    case ("mailboxes", 7):
      guard let directory = Self.decoded(levels[5]), let identifier = Self.decoded(levels[6]), !directory.isEmpty,
        !identifier.isEmpty
      else { return nil }
      self = .mailbox(
        machine: machine, directory: FileName(bytes: directory), identifier: FileName(bytes: identifier))
    default: return nil
    }
  }

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

  /// The bytes of one encoded level, or `nil` when it is not exactly what ``encoded(_:)`` writes.
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
