import DeviceSession

/// Cuts a byte stream into ``PeerFrame``s.
public typealias PeerFrameReader = LengthPrefixedFrameReader<PeerFrameCodec>

extension LengthPrefixedFrameReader where Codec == PeerFrameCodec {
  /// A reader of peer frames up to ``PeerFrameCodec/defaultMaximumFrameBytes``.
  public init() { self.init(codec: PeerFrameCodec()) }
}
