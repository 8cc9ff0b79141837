/// An advertiser's announcement: who it is, the service it offers, what it tells browsers.
public struct PeerAdvertisement: Sendable, Hashable {
  public var peer: PeerIdentity
  public var service: ServiceType
  public var info: DiscoveryInfo

  public init(peer: PeerIdentity, service: ServiceType, info: DiscoveryInfo = DiscoveryInfo()) {
    self.peer = peer
    self.service = service
    self.info = info
  }

  /// The announcement as a frame, for a link that carries it as one (a file of advertisements,
  /// a broker's retained message).
  public var frame: PeerFrame {
    PeerFrame(
      kind: .advertisement, source: peer, text: service.text, payload: PeerFrameCodec.encodeInfo(info))
  }

  /// The announcement `frame` carries; anything else, or a bad service type or info, is refused.
  public init(frame: PeerFrame) throws(PeerFrameError) {
    guard frame.kind == .advertisement else {
      throw .malformed("a \(frame.kind) frame is not an advertisement")
    }
    do throws(ServiceTypeError) { service = try ServiceType(frame.text) } catch {
      throw .malformed(error.description)
    }
    peer = frame.source
    info = try PeerFrameCodec.decodeInfo(frame.payload)
  }
}
