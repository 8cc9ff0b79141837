import DeviceSession

/// A test's simulated device whose session's deliveries are collected: what waits for them and
/// picks them out by kind, whatever link the device runs over.
public protocol CollectsSessionDeliveries {
  /// Every delivery of the device's session, in order.
  var deliveries: Collector<SessionDelivery> { get }
}

extension CollectsSessionDeliveries {
  /// Waits until the counterpart's reachability is `reachable` (a delivery, not a poll).
  public func waitReachable(_ reachable: Bool = true, seconds: Double = 10) -> Bool {
    deliveries.wait(seconds: seconds) {
      $0.last(where: Self.isReachability) == .reachabilityChanged(reachable)
    }
    .last(where: Self.isReachability) == .reachabilityChanged(reachable)
  }

  /// Whether `delivery` is a change of reachability.
  public static func isReachability(_ delivery: SessionDelivery) -> Bool {
    if case .reachabilityChanged = delivery { return true }
    return false
  }

  /// The messages delivered, in order.
  public var messages: [ReceivedMessage] {
    deliveries.values.compactMap { if case .message(let message) = $0 { return message } else { return nil } }
  }

  /// The contexts delivered, in order.
  public var contexts: [ReceivedContext] {
    deliveries.values.compactMap { if case .context(let context) = $0 { return context } else { return nil } }
  }

  /// The transfers delivered, in order.
  public var transfers: [FileTransfer] {
    deliveries.values.compactMap {
      if case .transfer(let transfer) = $0 { return transfer } else { return nil }
    }
  }

  /// The transfers the counterpart acknowledged, by id, in order.
  public var finishedTransfers: [UInt64] {
    deliveries.values.compactMap { if case .transferFinished(let id) = $0 { return id } else { return nil } }
  }
}
