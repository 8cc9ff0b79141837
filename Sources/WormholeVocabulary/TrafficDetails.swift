/// What a traffic record says beyond the post itself: which simulated device made it, which one is
/// at the other end, where a session post stands, and the identifier that ties a record to the
/// mailbox file it wrote and to the other records of one transfer. Every field is optional: a
/// record of a plain wormhole directory has only ``transfer`` (when the library wrote a file), and
/// records written before these fields existed have none.
public struct TrafficDetails: Sendable, Hashable {
  /// The device that made the record, `<pair>/<role>` (a pair name never holds `/`).
  public var device: String?
  /// The device at the other end, `<pair>/<role>`.
  public var peer: String?
  /// Where a session post stands.
  public var delivery: TrafficDelivery?
  /// The write's or transfer's identifier (see ``TrafficRecord/transfer``).
  public var transfer: String?
  /// The route a push or a deep link took on the device, as one JSON object's text (see
  /// ``TrafficRecord/route``).
  public var route: String?
  /// What a push or a deep link carried, so it can be sent again: the push's JSON payload or
  /// the URL (see ``TrafficRecord/payload``).
  public var payload: String?
  /// The bridged machine whose traffic this is (the fleet dashboard), `nil` for this machine's.
  public var machine: String?

  public init(
    device: String? = nil, peer: String? = nil, delivery: TrafficDelivery? = nil, transfer: String? = nil,
    route: String? = nil, payload: String? = nil
  ) {
    self.device = device
    self.peer = peer
    self.delivery = delivery
    self.transfer = transfer
    self.route = route
    self.payload = payload
  }

  /// Whether no field is set.
  public var isEmpty: Bool {
    device == nil && peer == nil && delivery == nil && transfer == nil && route == nil && payload == nil
      && machine == nil
  }
}

/// Where a session post stands. Unknown states from newer writers are kept as written.
public struct TrafficDelivery: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }

  /// Stored on the sending device, waiting for the counterpart (a context or a transfer).
  public static let queued = TrafficDelivery(rawValue: "queued")
  /// Handed to the counterpart (a message it received, a context or transfer it stored).
  public static let delivered = TrafficDelivery(rawValue: "delivered")
  /// Not delivered, and never will be: the record's `error` says why (not reachable, reply timed
  /// out).
  public static let failed = TrafficDelivery(rawValue: "failed")
  /// A queued transfer cancelled before it was sent: never delivered.
  public static let cancelled = TrafficDelivery(rawValue: "cancelled")

  public var description: String { rawValue }
}
