/// A named pair of simulated devices: one phone and one watch.
public struct Pair: Sendable, Hashable {
  public var name: PairName

  public init(name: PairName) { self.name = name }

  /// The pair's phone.
  public var phone: DeviceAddress { DeviceAddress(pair: name, role: .phone) }
  /// The pair's watch.
  public var watch: DeviceAddress { DeviceAddress(pair: name, role: .watch) }
  /// Both devices, phone first.
  public var devices: [DeviceAddress] { [phone, watch] }
}
