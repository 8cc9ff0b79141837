import ArchivedValues
import PatternMatching
import WormholeVocabulary

/// A simulated app's routes, read from a routes file (`device run --routes FILE`), so a device is
/// configured without code. One route a line:
///
/// ```
/// # KIND       PATTERN                   ACTION
/// deep-link    myapp://item/\d+          pass item
/// deep-link    "myapp://search\?q=.* x"  print
/// deep-link    myapp://admin/.*          decline
/// push         promo-.*                  pass promo coordinated-file
/// delegate                               print
/// ```
///
/// - KIND is `deep-link` or `push`; a line `delegate ACTION` sets the fallback for both kinds
///   (at most one such line).
/// - PATTERN is a ``RoutePattern``: PCRE2, matched case-insensitively against the whole URL, or
///   the whole `aps` string under the router's notification key.
/// - ACTION is `pass IDENTIFIER [TRANSITING]` (the payload or the URL passed to that mailbox on
///   the device; TRANSITING a ``TransitingType`` name, the device's default when left out),
///   `print`, or `decline` (deep-link routes only: the delegate gets the link; a push catcher
///   and the delegate cannot decline).
/// - Words are separated by spaces or tabs. A word is a run of other characters, or is quoted:
///   `"…"` with `\"` for a quote and `\\` for a backslash (any other backslash is kept, so regex
///   escapes need no doubling); a pattern with a space, or one that starts with `"` or `#`, is
///   quoted. A `#` that starts a word starts a comment to the end of the line (`app://x#frag`
///   has none). Blank lines are skipped; lines end with LF or CRLF.
///
/// Every bad line is reported, not just the first, with its file, line and column
/// (``RoutesFileErrors``); a file with any error is refused whole.
public struct RoutesFile: Sendable {
  /// The routes, in file order (which is registration order).
  public var routes: [RoutesFileRoute]
  /// The `delegate` line's action, if the file has one.
  public var delegate: RouteAction?
  /// The `delegate` line's number.
  public var delegateLine: Int?

  public init(routes: [RoutesFileRoute] = [], delegate: RouteAction? = nil, delegateLine: Int? = nil) {
    self.routes = routes
    self.delegate = delegate
    self.delegateLine = delegateLine
  }

  /// The routes of the file `file` (its name, for errors and labels), whose contents are `bytes`.
  /// - Throws: ``RoutesFileErrors`` with every problem found.
  public static func parse(_ bytes: [UInt8], file: String) throws(RoutesFileErrors) -> RoutesFile {
    var parser = Parser(file: file)
    var lineNumber = 0
    for var line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      lineNumber += 1
      if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
      guard let text = String(validating: line, as: UTF8.self) else {
        parser.fail(lineNumber, nil, "the line is not valid UTF-8")
        continue
      }
      parser.read(text, line: lineNumber)
    }
    guard parser.errors.isEmpty else { throw RoutesFileErrors(errors: parser.errors) }
    return parser.result
  }

  /// The routes of the file `file` whose contents are `text`.
  /// - Throws: ``RoutesFileErrors`` with every problem found.
  public static func parse(_ text: String, file: String) throws(RoutesFileErrors) -> RoutesFile {
    try parse(Array(text.utf8), file: file)
  }

  /// Registers the routes with `router`, in file order, and the delegate line as both delegates:
  /// each `pass` or `print` calls `perform` with the action and what was caught; a `decline`
  /// route declines. Keep the tokens for as long as the routes should stay.
  public func install(
    in router: Router, perform: @escaping @Sendable (RouteAction, RouteDelivery) -> Void
  ) -> [RouteToken] {
    var tokens: [RouteToken] = []
    for route in routes {
      let action = route.action
      let handler: CatcherHandler =
        switch route.kind {
        case .deepLink:
          .deepLink { link in
            guard action != .decline else { return .declined }
            perform(action, .deepLink(link))
            return .handled
          }
        case .push: .push { push in perform(action, .push(push)) }
        }
      tokens.append(router.register(handler, matching: route.pattern, label: route.label))
    }
    if let delegate {
      tokens.append(router.setDeepLinkDelegate { perform(delegate, .deepLink($0)) })
      tokens.append(router.setPushDelegate { perform(delegate, .push($0)) })
    }
    return tokens
  }
}

/// Reads a routes file line by line, collecting routes and errors.
private struct Parser {
  let file: String
  var result = RoutesFile()
  var errors: [RoutesFileError] = []

  init(file: String) { self.file = file }

  mutating func fail(_ line: Int, _ column: Int?, _ message: String) {
    errors.append(RoutesFileError(file: file, line: line, column: column, message: message))
  }

  mutating func read(_ text: String, line: Int) {
    let tokens: [RouteLineToken]
    do {
      tokens = try RouteLineToken.split(text)
    } catch {
      fail(line, error.column, error.message)
      return
    }
    guard let first = tokens.first else { return }
    let kinds = RouteKind.allCases.map(\.rawValue).joined(separator: ", ")
    if first.text == "delegate" {
      guard let action = action(tokens, from: 1, after: first, line: line, allowsDecline: false) else {
        return
      }
      if let earlier = result.delegateLine {
        fail(line, first.column, "a second delegate line (the delegate is set on line \(earlier))")
        return
      }
      result.delegate = action
      result.delegateLine = line
      return
    }
    guard let kind = RouteKind(rawValue: first.text) else {
      fail(
        line, first.column, "unknown kind \(DisplayText.quoted(first.text)): expected \(kinds) or delegate")
      return
    }
    guard tokens.count >= 2 else {
      fail(line, first.column(ofScalar: .max), "a \(kind) route needs a pattern and an action")
      return
    }
    let patternToken = tokens[1]
    var pattern: RoutePattern?
    if patternToken.text.isEmpty {
      fail(line, patternToken.column, "the pattern is empty")
    } else {
      do {
        pattern = try RoutePattern(patternToken.text)
      } catch {
        // An error about the whole pattern (too large) is at the pattern, not where PCRE2 noticed.
        let column =
          error.concernsTheWholePattern ? patternToken.column : patternToken.column(ofScalar: error.offset)
        fail(line, column, "bad pattern: \(error.message)")
      }
    }
    let action = action(tokens, from: 2, after: patternToken, line: line, allowsDecline: kind == .deepLink)
    guard let pattern, let action else { return }
    result.routes.append(
      RoutesFileRoute(kind: kind, pattern: pattern, action: action, line: line, label: "\(file):\(line)"))
  }

  /// The action in `tokens` from `start`, which must end the line; `nil` once a problem is
  /// recorded. `previous` is the word before it, for the column of a missing action.
  mutating func action(
    _ tokens: [RouteLineToken], from start: Int, after previous: RouteLineToken, line: Int,
    allowsDecline: Bool
  ) -> RouteAction? {
    let actions = "pass IDENTIFIER [TRANSITING], print or decline"
    guard start < tokens.count else {
      fail(line, previous.column(ofScalar: .max), "an action is missing: expected \(actions)")
      return nil
    }
    let word = tokens[start]
    let action: RouteAction
    var end = start + 1
    switch word.text {
    case "print": action = .print
    case "decline":
      guard allowsDecline else {
        let who = tokens[0].text == "delegate" ? "the delegate" : "a push route"
        fail(line, word.column, "\(who) cannot decline: only a deep-link route may")
        return nil
      }
      action = .decline
    case "pass":
      guard start + 1 < tokens.count else {
        fail(line, word.column(ofScalar: .max), "pass needs the identifier of a mailbox")
        return nil
      }
      let identifier = tokens[start + 1]
      if let problem = MessageIdentifier.problem(with: identifier.text) {
        fail(
          line, identifier.column, "\(DisplayText.quoted(identifier.text)) cannot name a mailbox: \(problem)")
        return nil
      }
      var transiting: TransitingType?
      if start + 2 < tokens.count {
        let type = tokens[start + 2]
        guard let known = TransitingType(rawValue: type.text) else {
          let names = TransitingType.allCases.map(\.rawValue).joined(separator: ", ")
          fail(
            line, type.column,
            "unknown transiting type \(DisplayText.quoted(type.text)): expected one of \(names)")
          return nil
        }
        transiting = known
        end = start + 3
      } else {
        end = start + 2
      }
      action = .pass(identifier: identifier.text, transiting: transiting)
    default:
      fail(line, word.column, "unknown action \(DisplayText.quoted(word.text)): expected \(actions)")
      return nil
    }
    if end < tokens.count {
      fail(line, tokens[end].column, "unexpected \(DisplayText.quoted(tokens[end].text)) after the action")
      return nil
    }
    return action
  }
}
