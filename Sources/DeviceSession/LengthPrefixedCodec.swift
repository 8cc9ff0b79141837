/// An error a length-prefixed codec reports: ``FrameError`` itself, or a codec's own error made
/// from one (the shared prefix checks and ``LengthPrefixedFrameReader`` speak ``FrameError``).
public protocol FrameCodingError: Error {
  /// The codec's error for `error`, case for case.
  init(_ error: FrameError)
}

extension FrameError: FrameCodingError {
  public init(_ error: FrameError) { self = error }
}

/// A codec of frames on a byte stream, each a big-endian `u32` length and then a body of that
/// many bytes that starts with a fixed header: the device link's ``FrameCodec`` and the peers'
/// frame codec.
///
/// Conforming codecs decode a body; the length prefix (checked against ``maximumFrameBytes``
/// and ``headerBytes`` before anything is allocated) and whole-frame decoding are shared.
public protocol LengthPrefixedCodec: Sendable {
  /// What a frame decodes to.
  associatedtype Frame: Sendable
  /// The error the codec throws.
  associatedtype Failure: FrameCodingError
  /// The largest frame (what follows the length prefix), in bytes.
  var maximumFrameBytes: Int { get }
  /// The size of the fixed header every body starts with: no frame is shorter.
  static var headerBytes: Int { get }
  /// The two bytes every body starts with.
  static var magic: (UInt8, UInt8) { get }
  /// The format's version, the byte after the magic; another version is refused.
  static var version: UInt8 { get }
  /// The frame whose body (after the length prefix) is `length` bytes at `offset` in `bytes`;
  /// `length` is what ``announcedLength(_:)`` accepted.
  func decodeBody(_ bytes: [UInt8], offset: Int, length: Int) throws(Failure) -> Frame
}

extension LengthPrefixedCodec {
  /// The length a prefix announces, checked against the limit: how many bytes to wait for.
  @inlinable public func announcedLength(_ prefix: some Collection<UInt8>) throws(Failure) -> Int {
    guard prefix.count >= 4 else { throw Failure(.truncated(needed: 4, available: prefix.count)) }
    var length = 0
    for byte in prefix.prefix(4) { length = length << 8 | Int(byte) }
    guard length <= maximumFrameBytes else {
      throw Failure(.oversized(bytes: length, limit: maximumFrameBytes))
    }
    guard length >= Self.headerBytes else {
      throw Failure(.malformed("a frame of \(length) bytes is shorter than its header"))
    }
    return length
  }

  /// A writer holding the length prefix, the magic and the version of a frame whose body is
  /// `length` bytes, checked against the limit: the codec appends the rest of the body.
  @inlinable package func frameWriter(length: Int) throws(Failure) -> ByteWriter {
    guard length <= maximumFrameBytes else {
      throw Failure(.oversized(bytes: length, limit: maximumFrameBytes))
    }
    var writer = ByteWriter(capacity: 4 + length)
    writer.append(UInt32(length))
    writer.append(Self.magic.0)
    writer.append(Self.magic.1)
    writer.append(Self.version)
    return writer
  }

  /// Reads and checks the magic and the version a body starts with; `what` names the frame in
  /// the error (`peer frame`).
  @inlinable package static func readMagicAndVersion(
    _ reader: inout ByteReader, what: String
  ) throws(FrameError) {
    guard try reader.readByte() == magic.0, try reader.readByte() == magic.1 else {
      throw .malformed("it does not start with the \(what) magic")
    }
    let found = try reader.readByte()
    guard found == version else { throw .malformed("version \(found) is not supported (\(version) is)") }
  }

  /// The frame in `bytes`, which hold exactly one frame, length prefix included.
  @inlinable public func decode(_ bytes: [UInt8]) throws(Failure) -> Frame {
    let length = try announcedLength(bytes)
    guard bytes.count - 4 >= length else {
      throw Failure(.truncated(needed: length, available: bytes.count - 4))
    }
    guard bytes.count - 4 == length else {
      throw Failure(.malformed("\(bytes.count - 4 - length) bytes follow the frame"))
    }
    return try decodeBody(bytes, offset: 4, length: length)
  }
}
