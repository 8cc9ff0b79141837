import Glibc
import KeyedArchive

/// One post in a wormhole directory's traffic journal.
///
/// On disk each record is one line of JSON (see the README's "Traffic journal" section):
/// `{"seq":7,"time":"2026-11-29T12:41:09.123Z","pid":4242,"sender":"app","transiting":"file",`
/// `"kind":"pass","identifier":"button","bytes":231,"outcome":"ok"}`, with `error` when the
/// outcome is `failed` and `replay_of` when the post replays an earlier one.
public struct TrafficRecord: Sendable, Hashable {
  /// Increases by one with every record of the directory, across processes and rotations.
  public var sequence: UInt64
  /// Milliseconds since 1970-01-01 UTC.
  public var milliseconds: Int64
  public var processIdentifier: Int32
  /// A label for the sending program (its name unless the sender sets one).
  public var sender: String
  /// The transiting type's name, kept as written so that records from newer writers still read.
  public var transiting: String
  public var kind: TrafficKind
  /// The message identifier; empty for ``TrafficKind/clearAll``.
  public var identifier: String
  /// The archive's size; 0 for notifications and clears.
  public var bytes: Int
  public var outcome: TrafficOutcome
  /// Why the post failed, when it did.
  public var error: String?
  /// The sequence number of the record this post replays.
  public var replayOf: UInt64?

  public init(
    sequence: UInt64, milliseconds: Int64, processIdentifier: Int32, sender: String, transiting: String,
    kind: TrafficKind, identifier: String, bytes: Int, outcome: TrafficOutcome, error: String? = nil,
    replayOf: UInt64? = nil
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
  }

  /// The transiting type, when it is one this build knows.
  public var transitingType: TransitingType? { TransitingType(rawValue: transiting) }

  /// The record as one line of JSON, without the newline.
  public var jsonLine: String { String(decoding: jsonLineBytes, as: UTF8.self) }

  /// The record as one line of JSON in UTF-8, without the newline: built as bytes, since every
  /// post writes one.
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
    out.append(UInt8(ascii: "}"))
    return out
  }

  /// The record in a JSON line, or `nil` when the line is not a record.
  public init?(jsonLine: String) {
    guard case .dictionary(let entries)? = try? JSONParser(maximumDepth: 4).parse(jsonLine) else {
      return nil
    }
    var fields: [String: ArchivedValue] = [:]
    for entry in entries { if case .string(let key) = entry.key { fields[key] = entry.value } }
    guard case .integer(let sequence)? = fields["seq"], sequence >= 0,
      case .string(let time)? = fields["time"], let milliseconds = Self.milliseconds(fromTimestamp: time),
      case .integer(let pid)? = fields["pid"],
      case .string(let transiting)? = fields["transiting"],
      case .string(let kind)? = fields["kind"],
      case .string(let identifier)? = fields["identifier"],
      case .integer(let bytes)? = fields["bytes"],
      case .string(let outcome)? = fields["outcome"]
    else { return nil }
    var sender = ""
    if case .string(let text)? = fields["sender"] { sender = text }
    var error: String?
    if case .string(let text)? = fields["error"] { error = text }
    var replayOf: UInt64?
    if case .integer(let number)? = fields["replay_of"], number >= 0 { replayOf = UInt64(number) }
    self.init(
      sequence: UInt64(sequence), milliseconds: milliseconds,
      processIdentifier: Int32(truncatingIfNeeded: pid),
      sender: sender, transiting: transiting, kind: TrafficKind(rawValue: kind), identifier: identifier,
      bytes: Int(bytes), outcome: TrafficOutcome(rawValue: outcome), error: error, replayOf: replayOf)
  }

  /// `2026-11-29T12:41:09.123Z` for a time in milliseconds since 1970.
  public static func timestamp(_ milliseconds: Int64) -> String {
    var seconds = time_t(milliseconds.dividedRoundingDown(by: 1000))
    let millis = Int(milliseconds - Int64(seconds) * 1000)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    var out: [UInt8] = []
    out.reserveCapacity(24)
    func digits(_ value: Int, _ width: Int) {
      var divisor = 1
      for _ in 1..<width { divisor *= 10 }
      var value = max(value, 0)
      if value >= divisor * 10 { value %= divisor * 10 }
      while divisor > 0 {
        out.append(UInt8(ascii: "0") + UInt8(value / divisor))
        value %= divisor
        divisor /= 10
      }
    }
    digits(Int(parts.tm_year) + 1900, 4)
    out.append(UInt8(ascii: "-"))
    digits(Int(parts.tm_mon) + 1, 2)
    out.append(UInt8(ascii: "-"))
    digits(Int(parts.tm_mday), 2)
    out.append(UInt8(ascii: "T"))
    digits(Int(parts.tm_hour), 2)
    out.append(UInt8(ascii: ":"))
    digits(Int(parts.tm_min), 2)
    out.append(UInt8(ascii: ":"))
    digits(Int(parts.tm_sec), 2)
    out.append(UInt8(ascii: "."))
    digits(millis, 3)
    out.append(UInt8(ascii: "Z"))
    return String(decoding: out, as: UTF8.self)
  }

  /// The milliseconds since 1970 of a `YYYY-MM-DDTHH:MM:SS.mmmZ` timestamp.
  public static func milliseconds(fromTimestamp text: String) -> Int64? {
    let bytes = Array(text.utf8)
    guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
      bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
      bytes[19] == UInt8(ascii: "."), bytes[23] == UInt8(ascii: "Z")
    else { return nil }
    func number(_ range: Range<Int>) -> Int64? {
      var value: Int64 = 0
      for index in range {
        let byte = bytes[index]
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      let millis = number(20..<23), (1...12).contains(month), (1...31).contains(day), hour < 24,
      minute < 60, second < 61
    else { return nil }
    // Days from civil date (proleptic Gregorian), after Howard Hinnant's public-domain algorithm.
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = shiftedYear.dividedRoundingDown(by: 400)
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    let days = era * 146_097 + dayOfEra - 719_468
    return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
  }
}

extension Int64 {
  fileprivate func dividedRoundingDown(by divisor: Int64) -> Int64 {
    let quotient = self / divisor
    return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
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
