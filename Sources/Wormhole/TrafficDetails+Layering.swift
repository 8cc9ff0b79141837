import WormholeVocabulary

extension TrafficDetails {
  /// These details with every field they lack taken from `base`.
  package func over(_ base: TrafficDetails) -> TrafficDetails {
    TrafficDetails(
      device: device ?? base.device, peer: peer ?? base.peer, delivery: delivery ?? base.delivery,
      transfer: transfer ?? base.transfer)
  }
}
