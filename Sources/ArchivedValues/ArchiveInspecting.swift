import PropertyList

/// Something that opens the bytes of a file or message for display: the decoder's
/// `KeyedArchiveInspector`, or a stand-in in tests.
///
/// The pure layers (the mailbox model, the dashboard) hold one of these rather than the decoder
/// itself, so they link neither Foundation nor the decoder's large-stack thread.
public protocol ArchiveInspecting: Sendable {
  /// Inspects the bytes of a file or message; throws only when they are not a readable property
  /// list.
  func inspect(_ bytes: [UInt8]) throws(PropertyListError) -> Inspection
}
