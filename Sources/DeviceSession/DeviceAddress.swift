/// One device of one pair: where frames are sent and whose containers are meant.
///
/// An address names a device, not a machine: the local link finds it under the home, a
/// networked link would find it through a broker.
public struct DeviceAddress: Sendable, Hashable {
  public var pair: PairName
  public var role: DeviceRole

  public init(pair: PairName, role: DeviceRole) {
    self.pair = pair
    self.role = role
  }

  /// The other device of the same pair.
  public var counterpart: DeviceAddress { DeviceAddress(pair: pair, role: role.counterpart) }
}
