import WormholeVocabulary

extension MessageIdentifier {
  /// Throws ``WormholeError/invalidIdentifier(_:reason:)`` unless `identifier` can name a mailbox
  /// (see ``MessageIdentifier/problem(with:)``).
  public static func validate(_ identifier: String) throws(WormholeError) {
    if let reason = problem(with: identifier) { throw .invalidIdentifier(identifier, reason: reason) }
  }
}
