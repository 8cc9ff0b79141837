import WormholeVocabulary

/// What a key or a `:` command asks for. The ``Keymap`` binds keys and command names to these;
/// a command with arguments gives the action its payload, a key the action without one.
public enum DashboardAction: Sendable, Hashable {
  case quit, help, back
  /// Open the message log (`L`, `:messages`).
  case messages
  /// Draw the screen again from nothing (Ctrl-L).
  case repaint
  case nextPane, previousPane
  case down, up, pageDown, pageUp, halfPageDown, halfPageUp, top, bottom
  case toggle
  /// Open the filter line for the focused pane (`nil`), or set its filter to this text (`:filter
  /// RE`; empty clears it).
  case filter(String?)
  case command
  /// Open the pass form (`nil`), or pass this identifier and JSON at once (`:pass ID JSON`).
  case pass(PassRequest?)
  /// Open the route form: a push to, or a URL opened on, a device of a pair (`u`, `:push`).
  case route
  /// Accept (`a`) or decline (`x`) the pending invitation of the selected peer.
  case answerInvitation(accepts: Bool)
  /// Send data from the selected peer: `:peer-send TO[,TO...] reliable|unreliable DATA` (the
  /// key `S` alone says how).
  case peerSend(targets: String, mode: String, data: String)
  /// The key for ``peerSend(targets:mode:data:)`` without arguments: says how to send.
  case peerSendUsage
  /// Have the selected peer leave its session (`X`, `:peer-disconnect`).
  case disconnectPeer
  /// Cancel the selected peer's resource under the contents cursor, or its only one (`C`,
  /// `:peer-cancel`).
  case cancelPeerResource
  /// Clear the selected mailbox (`nil`), or the one named (`:clear ID`); both ask first.
  case clear(String?)
  case clearAll
  /// Open the replay form for the selection, with the target and type given, if any.
  case replay(ReplayRequest)
  /// Sort by the next order (`nil`), or by this one.
  case sort(SortOrder?)
  case freeze, copy
  case theme(ThemeRequest)
  case nextView, mark

  /// `:pass ID JSON`: what to pass, as typed (checked as the pass form checks it).
  public struct PassRequest: Sendable, Hashable {
    public var identifier: String
    /// The value as JSON text; empty passes a notification without a message.
    public var value: String
  }

  /// `:replay [TO-ID [TYPE]]`: the replay form's fields, filled in.
  public struct ReplayRequest: Sendable, Hashable {
    /// The identifier to replay to; `nil` keeps the source's.
    public var identifier: String?
    /// The transiting type; `nil` keeps the source's.
    public var transiting: TransitingType?
  }
}
