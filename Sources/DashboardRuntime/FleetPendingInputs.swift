import FleetModel

/// What the fleet's source holds between the client's thread and the next batch: the messages
/// received (checked when the batch is made) and the markers, in order, at most ``byteLimit``
/// bytes of topics and payloads (each message counted ``entryOverhead`` bytes more, so that a
/// flood of empty payloads is bounded too). A publisher that floods large payloads faster than the batches are checked
/// would otherwise grow it without bound (2,000 payloads of 650 KB made a dashboard 1.7 GB): a
/// message beyond the bound is dropped, and counted by the fleet with the reason, until a batch
/// is taken. Markers and the client's refusals always go in (they carry no payload).
struct FleetPendingInputs: Sendable {
  /// The bytes of payloads held by default: far above a fleet's retained state at start (5,200
  /// mailboxes of 1 KB take 5 MB), far below what a flood can send.
  static let defaultByteLimit = 64 << 20

  /// One thing waiting for the batch.
  enum Entry: Sendable {
    /// A marker from the source itself (a reload's start or end), checked already.
    case checked(FleetMessage)
    /// A message from the broker as it came, and when (milliseconds since 1970).
    case received(FleetInput, at: Int64)

    /// The message checked (``FleetModel/FleetMessage/init(_:at:)``), off the client's thread.
    var message: FleetMessage {
      switch self {
      case .checked(let message): message
      case .received(let input, let time): FleetMessage(input, at: time)
      }
    }

    /// The message from the broker, `nil` for a marker.
    var input: FleetInput? {
      if case .received(let input, _) = self { return input }
      return nil
    }
  }

  /// What a held message costs beyond its topic and payload (the entry, the arrays' headers).
  static let entryOverhead = 64

  /// The most bytes held.
  let byteLimit: Int
  /// Bytes held now (topics, payloads, and ``entryOverhead`` for each message).
  private(set) var byteCount = 0
  private var entries: [Entry] = []

  init(byteLimit: Int = defaultByteLimit) { self.byteLimit = max(byteLimit, 0) }

  /// Whether nothing waits.
  var isEmpty: Bool { entries.isEmpty }

  /// Adds `input`, received at `time`; a message that would take the held bytes beyond
  /// ``byteLimit`` is replaced by a refusal that says so.
  mutating func append(_ input: FleetInput, at time: Int64) {
    let size = input.payload.count + input.topic.utf8.count + Self.entryOverhead
    guard size <= byteLimit - byteCount else {
      entries.append(
        .received(
          .refused(
            "the dashboard fell behind: a message of \(size) bytes dropped while \(byteCount) bytes wait to be checked (at most \(byteLimit))"
          ), at: time))
      return
    }
    byteCount += size
    entries.append(.received(input, at: time))
  }

  /// Adds a marker of the source's own.
  mutating func append(marker: FleetMessage) { entries.append(.checked(marker)) }

  /// Everything waiting, in order; the bound is free again.
  mutating func take() -> [Entry] {
    defer {
      entries = []
      byteCount = 0
    }
    return entries
  }
}
