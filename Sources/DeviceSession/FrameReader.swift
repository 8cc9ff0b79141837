/// Cuts the device link's byte stream into ``DeviceFrame``s.
public typealias FrameReader = LengthPrefixedFrameReader<FrameCodec>

extension LengthPrefixedFrameReader where Codec == FrameCodec {
  /// A reader of frames up to ``FrameCodec/defaultMaximumFrameBytes``.
  public init() { self.init(codec: FrameCodec()) }
}
