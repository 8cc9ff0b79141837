/// An archived `NSURL`: `relative` is the string as written, `base` the URL it is relative to.
public struct ArchivedURL: Sendable, Hashable {
  /// The URL string as archived (`NS.relative`), relative to ``base`` when there is one.
  public var relative: String
  /// The base URL (usually a ``ArchivedValue/url(_:)``), or `nil` for an absolute URL.
  public var base: ArchivedValue?
  /// `relative` resolved against `base` (RFC 3986), when the decoder could work it out: the base
  /// is a plain chain of URLs. `nil` when there is no base or it could not be resolved.
  public var resolved: String?

  public init(relative: String, base: ArchivedValue? = nil, resolved: String? = nil) {
    self.relative = relative
    self.base = base
    self.resolved = resolved
  }

  /// The absolute URL: ``relative`` when there is no base, else ``resolved``.
  public var absoluteString: String? { base == nil ? relative : resolved }
}
