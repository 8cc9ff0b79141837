import WormholeVocabulary

/// What a route of a routes file does with what it catches.
public enum RouteAction: Sendable, Hashable, CustomStringConvertible {
  /// Passes the push's payload or the URL to the mailbox `identifier` on the device, with
  /// `transiting` (the device's default when `nil`).
  case pass(identifier: String, transiting: TransitingType?)
  /// Prints it (the device's output).
  case print
  /// Declines it, so the delegate gets it: deep-link routes only (Stargate's catcher returning
  /// `false`).
  case decline

  /// The action as a routes file spells it (the identifier as given: show it escaped).
  public var description: String {
    switch self {
    case .pass(let identifier, let transiting?): "pass \(identifier) \(transiting)"
    case .pass(let identifier, nil): "pass \(identifier)"
    case .print: "print"
    case .decline: "decline"
    }
  }
}
