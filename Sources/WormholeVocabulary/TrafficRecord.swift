import ArchivedValues

/// One post in a wormhole directory's traffic journal.
///
/// On disk each record is one line of JSON (see the README's "Traffic journal" section):
/// `{"seq":7,"time":"2026-11-29T12:41:09.123Z","pid":4242,"sender":"app","transiting":"file",`
/// `"kind":"pass","identifier":"button","bytes":231,"outcome":"ok"}`, with `error` when the
/// outcome is `failed` and `replay_of` when the post replays an earlier one. Records of simulated
/// devices and of library writes add `device`, `peer`, `delivery` and `transfer` (each only when
/// set), so a record written before those fields existed reads with them `nil`.
public struct TrafficRecord: Sendable, Hashable {
  /// Increases by one with every record of the directory, across processes and rotations, up
  /// to ``maximumSequence``; a smaller number than the last one read means the numbering
  /// restarted (a new or truncated journal).
  public var sequence: UInt64 { didSet { stored = nil } }
  /// Milliseconds since 1970-01-01 UTC.
  public var milliseconds: Int64 { didSet { stored = nil } }
  public var processIdentifier: Int32 { didSet { stored = nil } }
  /// A label for the sending program (its name unless the sender sets one).
  public var sender: String { didSet { stored = nil } }
  /// The transiting type's name, kept as written so that records from newer writers still read.
  public var transiting: String { didSet { stored = nil } }
  public var kind: TrafficKind { didSet { stored = nil } }
  /// The message identifier; empty for ``TrafficKind/clearAll``.
  public var identifier: String { didSet { stored = nil } }
  /// The archive's size; 0 for notifications and clears.
  public var bytes: Int { didSet { stored = nil } }
  public var outcome: TrafficOutcome { didSet { stored = nil } }
  /// Why the post failed, when it did.
  public var error: String? { didSet { stored = nil } }
  /// The sequence number of the record this post replays.
  public var replayOf: UInt64? { didSet { stored = nil } }
  /// The simulated device that made the record, `<pair>/<role>` (see ``TrafficDetails``).
  public var device: String? { didSet { stored = nil } }
  /// The device on the other end of a session post, `<pair>/<role>`.
  public var peer: String? { didSet { stored = nil } }
  /// Where a session post stands: queued, delivered, failed or cancelled.
  public var delivery: TrafficDelivery? { didSet { stored = nil } }
  /// The identifier of the write or transfer: the same text is in the mailbox's
  /// `user.wormhole.transfer` extended attribute when the post wrote one, and on every record of
  /// one session transfer (queued, then delivered or cancelled), so records and file changes pair
  /// exactly.
  public var transfer: String? { didSet { stored = nil } }
  /// The route a push or a deep link took (records of kind ``TrafficKind/push`` and
  /// ``TrafficKind/deepLink``): one JSON object's text, as `RouteOutcome.json` writes it
  /// (`{"taken":"catcher"|"delegate"|"unhandled",…}`). It is written into the line as that object,
  /// not as a string, and only when it is one (text that is not a JSON object is left out, so a
  /// record never writes a line that does not parse); read back in this library's JSON form.
  public var route: String? { didSet { stored = nil } }
  /// What a push or a deep link carried, for a replay: the push's JSON payload, or the URL. At
  /// most ``maximumPayloadBytes`` bytes of UTF-8 are written (APNs' payload limit); a longer
  /// text is left out of the line, so that a record stays far below a journal line's limit.
  public var payload: String? { didSet { stored = nil } }
  /// The line as read from the journal, unknown fields included; `nil` for a record made in
  /// memory or changed since it was read.
  private var stored: [UInt8]?

  /// The largest sequence number a record may carry: 2^53, the largest integer every JSON
  /// reader holds exactly. A line claiming more is not a record (a foreign writer cannot steer
  /// the numbering into overflow), and an appender that finds the last record at the maximum
  /// starts again at 1, which readers see as a restart.
  public static let maximumSequence: UInt64 = 1 << 53

  /// The longest ``payload`` a record writes, in bytes of UTF-8: 4096, a push notification's limit.
  public static let maximumPayloadBytes = 4096

  public init(
    sequence: UInt64, milliseconds: Int64, processIdentifier: Int32, sender: String, transiting: String,
    kind: TrafficKind, identifier: String, bytes: Int, outcome: TrafficOutcome, error: String? = nil,
    replayOf: UInt64? = nil, details: TrafficDetails = TrafficDetails()
  ) {
    self.sequence = sequence
    self.milliseconds = milliseconds
    self.processIdentifier = processIdentifier
    self.sender = sender
    self.transiting = transiting
    self.kind = kind
    self.identifier = identifier
    self.bytes = bytes
    self.outcome = outcome
    self.error = error
    self.replayOf = replayOf
    self.device = details.device
    self.peer = details.peer
    self.delivery = details.delivery
    self.transfer = details.transfer
    self.route = details.route
    self.payload = details.payload
  }

  /// The device fields of the record, as a value to pass on.
  public var details: TrafficDetails {
    TrafficDetails(
      device: device, peer: peer, delivery: delivery, transfer: transfer, route: route, payload: payload)
  }

  /// The record's line as stored in the journal when it was read from one (unknown fields kept,
  /// byte for byte), else as this library writes it; without the newline.
  public var line: [UInt8] { stored ?? jsonLineBytes }

  /// The line as read from the journal, or `nil` for a record made in memory (or changed since).
  public var storedLine: [UInt8]? { stored }

  /// Two records are equal when their lines are: the same known fields and the same unknown ones.
  public static func == (left: TrafficRecord, right: TrafficRecord) -> Bool { left.line == right.line }

  public func hash(into hasher: inout Hasher) { hasher.combine(line) }

  /// The value of the field `name` in the stored line, known or not (for fields newer writers
  /// add); `nil` when absent or when the record was not read from a journal.
  public func storedField(_ name: String) -> ArchivedValue? {
    guard let stored, case .dictionary(let entries)? = Self.parse(stored[...]) else { return nil }
    for entry in entries.reversed() {
      if case .string(let key) = entry.key, key.utf8.elementsEqual(name.utf8) { return entry.value }
    }
    return nil
  }

  /// The transiting type, when it is one this build knows.
  public var transitingType: TransitingType? { TransitingType(rawValue: transiting) }

  /// The record's line (``line``) as text, without the newline: the stored line exactly when
  /// the record was read from a journal (a record's line is always valid UTF-8).
  public var jsonLine: String { String(decoding: line, as: UTF8.self) }

  /// The record as this library writes it, one line of JSON in UTF-8 without the newline
  /// (unknown fields of a stored line are not in it): built as bytes, since every post writes one.
  public var jsonLineBytes: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(160 + identifier.utf8.count + sender.utf8.count)
    func literal(_ text: StaticString) {
      out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
    func number<N: BinaryInteger>(_ value: N) { out.append(contentsOf: String(value).utf8) }
    literal("{\"seq\":")
    number(sequence)
    literal(",\"time\":\"")
    out.append(contentsOf: Self.timestamp(milliseconds).utf8)
    literal("\",\"pid\":")
    number(processIdentifier)
    literal(",\"sender\":")
    JSONText.appendString(sender, to: &out)
    literal(",\"transiting\":")
    JSONText.appendString(transiting, to: &out)
    literal(",\"kind\":")
    JSONText.appendString(kind.rawValue, to: &out)
    literal(",\"identifier\":")
    JSONText.appendString(identifier, to: &out)
    literal(",\"bytes\":")
    number(bytes)
    literal(",\"outcome\":")
    JSONText.appendString(outcome.rawValue, to: &out)
    if let error {
      literal(",\"error\":")
      JSONText.appendString(error, to: &out)
    }
    if let replayOf {
      literal(",\"replay_of\":")
      number(replayOf)
    }
    if let device {
      literal(",\"device\":")
      JSONText.appendString(device, to: &out)
    }
    if let peer {
      literal(",\"peer\":")
      JSONText.appendString(peer, to: &out)
    }
    if let delivery {
      literal(",\"delivery\":")
      JSONText.appendString(delivery.rawValue, to: &out)
    }
    if let transfer {
      literal(",\"transfer\":")
      JSONText.appendString(transfer, to: &out)
    }
    if let route, let object = Self.objectText(route) {
      literal(",\"route\":")
      out.append(contentsOf: object)
    }
    if let payload, payload.utf8.count <= Self.maximumPayloadBytes {
      literal(",\"payload\":")
      JSONText.appendString(payload, to: &out)
    }
    out.append(UInt8(ascii: "}"))
    return out
  }

  /// The record in a JSON line, or `nil` when the line is not a record.
  public init?(jsonLine: String) {
    self.init(jsonLineBytes: Array(jsonLine.utf8)[...])
  }

  /// The record in a JSON line of UTF-8 bytes (without its newline), or `nil` when the line is
  /// not a record: not a JSON object, a known field missing or of the wrong type, a `seq` or
  /// `replay_of` outside 0...``maximumSequence``, a `time` that is not a valid UTC time
  /// (``milliseconds(fromTimestamp:)``), a `pid` outside 0...2^31-1, or a negative `bytes`.
  /// Unknown fields and kinds are kept: ``line`` is the line as given.
  public init?(jsonLineBytes bytes: ArraySlice<UInt8>) {
    guard case .dictionary(let entries)? = Self.parse(bytes) else { return nil }
    var fields: [String: ArchivedValue] = [:]
    for entry in entries { if case .string(let key) = entry.key { fields[key] = entry.value } }
    guard case .integer(let sequence)? = fields["seq"], (0...Int64(Self.maximumSequence)).contains(sequence),
      case .string(let time)? = fields["time"], let milliseconds = Self.milliseconds(fromTimestamp: time),
      case .integer(let pid)? = fields["pid"], let processIdentifier = Int32(exactly: pid), pid >= 0,
      case .string(let transiting)? = fields["transiting"],
      case .string(let kind)? = fields["kind"],
      case .string(let identifier)? = fields["identifier"],
      case .integer(let size)? = fields["bytes"], size >= 0, let byteCount = Int(exactly: size),
      case .string(let outcome)? = fields["outcome"]
    else { return nil }
    var sender = ""
    if case .string(let text)? = fields["sender"] { sender = text }
    var error: String?
    if case .string(let text)? = fields["error"] { error = text }
    var replayOf: UInt64?
    if let value = fields["replay_of"] {
      guard case .integer(let number) = value, (0...Int64(Self.maximumSequence)).contains(number) else {
        return nil
      }
      replayOf = UInt64(number)
    }
    // The device fields are optional text; one of another type is not this build's field, and is
    // ignored rather than making the record unreadable (the stored line keeps it).
    func text(_ name: String) -> String? {
      if case .string(let value)? = fields[name] { return value }
      return nil
    }
    let details = TrafficDetails(
      device: text("device"), peer: text("peer"),
      delivery: text("delivery").map(TrafficDelivery.init(rawValue:)),
      transfer: text("transfer"),
      route: fields["route"].flatMap { value -> String? in
        guard case .dictionary = value else { return nil }
        return String(decoding: Self.render(value), as: UTF8.self)
      },
      payload: text("payload"))
    self.init(
      sequence: UInt64(sequence), milliseconds: milliseconds, processIdentifier: processIdentifier,
      sender: sender, transiting: transiting, kind: TrafficKind(rawValue: kind), identifier: identifier,
      bytes: byteCount, outcome: TrafficOutcome(rawValue: outcome), error: error, replayOf: replayOf,
      details: details)
    stored = Array(bytes)
  }

  private static func parse(_ bytes: ArraySlice<UInt8>) -> ArchivedValue? {
    bytes.withUnsafeBufferPointer { try? JSONParser(maximumDepth: maximumDepth).parse($0) }
  }

  /// How deep a line's JSON may nest: the record, its ``route`` object, the route's lists and
  /// their objects.
  private static let maximumDepth = 5

  /// The JSON object in `text`, rendered as this library writes JSON, or `nil` when `text` is not
  /// one object nested no deeper than a record allows.
  private static func objectText(_ text: String) -> [UInt8]? {
    let parsed = Array(text.utf8).withUnsafeBufferPointer { buffer in
      try? JSONParser(maximumDepth: maximumDepth - 1).parse(buffer)
    }
    guard let parsed, case .dictionary = parsed else { return nil }
    return render(parsed)
  }

  /// A parsed JSON value as JSON text (strings escaped by ``JSONText``).
  private static func render(_ value: ArchivedValue) -> [UInt8] {
    var out: [UInt8] = []
    func append(_ value: ArchivedValue) {
      switch value {
      case .dictionary(let entries):
        out.append(UInt8(ascii: "{"))
        for (index, entry) in entries.enumerated() {
          if index > 0 { out.append(UInt8(ascii: ",")) }
          if case .string(let key) = entry.key {
            JSONText.appendString(key, to: &out)
          } else {
            JSONText.appendString("", to: &out)
          }
          out.append(UInt8(ascii: ":"))
          append(entry.value)
        }
        out.append(UInt8(ascii: "}"))
      case .array(let elements):
        out.append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
          if index > 0 { out.append(UInt8(ascii: ",")) }
          append(element)
        }
        out.append(UInt8(ascii: "]"))
      case .string(let text): JSONText.appendString(text, to: &out)
      case .integer(let number): out.append(contentsOf: String(number).utf8)
      case .unsignedInteger(let number): out.append(contentsOf: String(number).utf8)
      case .real(let number) where number.isFinite: out.append(contentsOf: "\(number)".utf8)
      case .boolean(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
      default: out.append(contentsOf: "null".utf8)
      }
    }
    append(value)
    return out
  }

  /// `2026-11-29T12:41:09.123Z` for a time in milliseconds since 1970 (``UTCTimestamp``).
  public static func timestamp(_ milliseconds: Int64) -> String {
    UTCTimestamp.text(ofMilliseconds: milliseconds)
  }

  /// The milliseconds since 1970 of a `YYYY-MM-DDTHH:MM:SS.mmmZ` timestamp, or `nil` unless it
  /// names a real time: a day that exists in its month (`2026-02-31` does not), hours to 23,
  /// minutes and seconds to 59 (a leap second `:60` is refused, as ``timestamp(_:)`` never
  /// writes one and it would not read back the same). Years 0000 to 9999 (``UTCTimestamp``).
  public static func milliseconds(fromTimestamp text: String) -> Int64? {
    UTCTimestamp.milliseconds(fromText: text)
  }
}

/// What a traffic record reports. Unknown kinds from newer writers are kept as written.
public struct TrafficKind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }

  /// A message was written to the mailbox and the notification posted.
  public static let pass = TrafficKind(rawValue: "pass")
  /// A notification without a message (a pass of `nil`).
  public static let notify = TrafficKind(rawValue: "notify")
  /// One mailbox was cleared.
  public static let clear = TrafficKind(rawValue: "clear")
  /// Every mailbox of the directory was cleared.
  public static let clearAll = TrafficKind(rawValue: "clear-all")
  /// A push notification delivered to a simulated device and routed there (the record's
  /// ``TrafficRecord/route`` says where it went).
  public static let push = TrafficKind(rawValue: "push")
  /// A deep link (a URL) opened on a simulated device and routed there.
  public static let deepLink = TrafficKind(rawValue: "deep-link")

  public var description: String { rawValue }
}

/// Whether the post took effect.
public struct TrafficOutcome: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }

  public static let ok = TrafficOutcome(rawValue: "ok")
  /// The mailbox could not be written or removed; the record's `error` says why.
  public static let failed = TrafficOutcome(rawValue: "failed")

  public var description: String { rawValue }
}
