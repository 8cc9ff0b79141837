import FleetModel
import MailboxModel
import WormholeVocabulary

/// Everything the dashboard shows and remembers, as a value. It changes only through
/// ``update(_:)``; views read it and never change it.
///
/// Two parts, kept apart: the model (what the watcher saw, the input) and the state of the
/// interface over it. Each pane has its own state and update (``TreePaneState``,
/// ``ContentsPaneState``, ``TrafficPaneState``), as each overlay does (``Overlay``); their
/// updates are pure and take what they need from the model as input, so they hold no copy of
/// it. This type composes them: it routes each message to the part it concerns, and keeps the
/// size, the clock, the focus, the status line, the theme and the read-only policy, decided
/// once for every effect.
public struct DashboardState: Sendable {
  // The input.

  /// The live model: directories, mailboxes, history, traffic.
  public internal(set) var model: ModelState
  /// The roots being watched, for showing directories relative to them.
  public var rootPaths: [String]
  /// The simulator device set shown, if any: names its containers' directories (``showDeviceSet(_:)``).
  public internal(set) var deviceSetLabels: DeviceSetLabels?

  // The interface around the panes.

  public internal(set) var width: Int
  public internal(set) var height: Int
  /// Now, in milliseconds since 1970: the last time a message brought.
  public internal(set) var now: Int64
  public internal(set) var focus: Pane = .mailboxes
  /// Whether actions that write are disabled (`--read-only`).
  public var isReadOnly: Bool
  /// Why they are, as refusals say it.
  public internal(set) var readOnlyReason = "started with --read-only"
  /// The theme in use, by name.
  public internal(set) var themeName: String
  public internal(set) var overlay: Overlay?
  public internal(set) var status: StatusMessage?
  /// Every status message of the session, newest last (`L`, `:messages`), so a message cut at
  /// the terminal's width can be read in full.
  public internal(set) var messageLog = MessageLog()
  public internal(set) var frozen: FrozenEvents?
  public internal(set) var rate = RateHistory()
  /// The pairs of simulated devices, by name (``DashboardMessage/pairs(_:)``).
  public internal(set) var pairs: [PairSnapshot] = []
  /// The running simulated peers, by service type and name (``DashboardMessage/peers(_:)``).
  public internal(set) var peers: [PeerSnapshot] = []

  /// The fleet's bridged machines (`--broker`), as the broker's messages described them.
  public internal(set) var fleet = FleetState()
  /// The broker the fleet comes from, when the dashboard was started with `--broker`.
  public internal(set) var brokerAddress: String?
  /// Whether the broker connection is up; why not, when it is not.
  public internal(set) var brokerProblem: String?
  /// Each machine's nodes of the tree, in order, listed again only when it changed.
  var fleetNodeCache: [String: [TreeNodeID]] = [:]
  /// The fleet's shortfalls (machines whose bridge says it publishes more mailboxes than
  /// arrived): when they are judged again (a while after they changed, so that a burst still
  /// arriving is not taken for one), and those said last.
  var fleetShortfall: (due: Int64?, said: [String]) = (nil, [])

  // The panes.

  /// The mailbox tree: order, folds, filter, selection, scroll.
  public internal(set) var treePane = TreePaneState()
  /// The contents pane: view, cursor, scroll, folds, history cursor, mark.
  public internal(set) var contentsPane = ContentsPaneState()
  /// The traffic pane: selection (or following the newest) and filter.
  public internal(set) var trafficPane = TrafficPaneState()
  /// The versions the contents pane shows, decoded off the loop and handed back; the state
  /// decodes nothing itself.
  public internal(set) var decodedVersions = DecodedVersions()
  /// The contents pane's tree or JSON lines as last built (see ``refreshedContentsLines()``).
  var contentsMemo: ContentsLines.Memo?
  /// How many times a filter was set on a pane (compiled and matched): once per edit, never
  /// per character of a paste.
  package internal(set) var filterApplications = 0

  /// A dashboard over `model` (already holding what the watcher found at start).
  public init(
    model: ModelState, rootPaths: [String], width: Int, height: Int, now: Int64, isReadOnly: Bool = false,
    themeName: String = "dark"
  ) {
    self.model = model
    self.rootPaths = rootPaths
    self.width = width
    self.height = height
    self.now = now
    self.isReadOnly = isReadOnly
    self.themeName = themeName
    updateTree(.rebuild)
    updateTree(.select(row: 0))
  }

  /// Whether the operator moved the selection yet; until then the first mailbox is selected as
  /// the model fills.
  var hasMoved = false

  /// Whether the operator asked to leave.
  public internal(set) var isQuitting = false

  /// When the pass form's large value is checked, once typing has paused (see
  /// ``PassForm/immediateCheckLimit``); `nil` when no check waits.
  var passFormCheckDue: Int64?
}
