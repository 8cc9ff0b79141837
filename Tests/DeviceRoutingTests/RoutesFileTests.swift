import DeviceRouting
import Synchronization
import Testing
import WormholeVocabulary

@Suite struct RoutesFileTests {
  static let good = """
    # The demo app's routes.
    deep-link  myapp://item/\\d+            pass item
    deep-link  "myapp://search\\?q=a b"     print      # a pattern with a space, quoted
    deep-link  myapp://admin/.*            decline
    deep-link  myapp://page#frag           print
    push       promo-.*                    pass promo coordinated-file
    \tpush\t"say \\"hi\\" \\\\ \\d"\tprint

    delegate   pass fallback file
    """

  @Test func aGoodFileGivesItsRoutesInOrder() throws {
    let file = try RoutesFile.parse(Self.good, file: "demo.routes")
    #expect(file.routes.map(\.kind) == [.deepLink, .deepLink, .deepLink, .deepLink, .push, .push])
    #expect(
      file.routes.map(\.pattern.source) == [
        "myapp://item/\\d+", "myapp://search\\?q=a b", "myapp://admin/.*", "myapp://page#frag", "promo-.*",
        "say \"hi\" \\ \\d",
      ])
    #expect(
      file.routes.map(\.action) == [
        .pass(identifier: "item", transiting: nil), .print, .decline, .print,
        .pass(identifier: "promo", transiting: .coordinatedFile), .print,
      ])
    #expect(file.routes.map(\.line) == [2, 3, 4, 5, 6, 7])
    #expect(file.routes.first?.label == "demo.routes:2")
    #expect(file.delegate == .pass(identifier: "fallback", transiting: .file))
    #expect(file.delegateLine == 9)
  }

  @Test func crlfLinesAndAFileWithoutRoutesParse() throws {
    let file = try RoutesFile.parse("push n-.* print\r\n# only a comment\r\n", file: "f")
    #expect(file.routes.map(\.pattern.source) == ["n-.*"])
    let empty = try RoutesFile.parse("", file: "f")
    #expect(empty.routes.isEmpty)
    #expect(empty.delegate == nil)
  }

  /// A pattern too large for the matcher is reported at the pattern's own column, not at where
  /// PCRE2 happened to notice (which could be past the end of the line's pattern).
  @Test func aPatternTooLargeIsReportedAtThePattern() {
    let large = String(repeating: "[ab]", count: 75_000)
    do {
      _ = try RoutesFile.parse("push  \(large) print", file: "large.routes")
      Issue.record("parsed")
    } catch {
      #expect(error.errors.map(\.column) == [7])
      #expect(error.errors.first?.message == "bad pattern: regular expression is too large", "\(error)")
    }
  }

  /// Every bad line is reported, each with its file, line and column, not just the first.
  @Test func everyBadLineIsReportedWithItsLineAndColumn() {
    let text = """
      deep-link myapp://(item print
      push promo pass
      route x print
      deep-link myapp://x pass a/b
      push n decline
      delegate decline
      deep-link x pass item fast
      deep-link "unclosed print
      deep-link "x"y print
      push n print extra
      deep-link
      deep-link x
      delegate print
      delegate print
      deep-link "" print
      push "a\\"(" print
      """
    do {
      _ = try RoutesFile.parse(text, file: "bad.routes")
      Issue.record("parsed")
    } catch {
      // PCRE2 reports a missing parenthesis where the pattern ends; a missing word just after the
      // word before it.
      let found = error.errors.map { ($0.line, $0.column) }
      let expected: [(Int, Int?)] = [
        (1, 24), (2, 16), (3, 1), (4, 26), (5, 8), (6, 10), (7, 23), (8, 11), (9, 14), (10, 14), (11, 10),
        (12, 12), (14, 1), (15, 11), (16, 11),
      ]
      #expect(found.map(\.0) == expected.map(\.0))
      #expect(found.map(\.1) == expected.map(\.1))
      let messages = error.errors.map(\.message)
      #expect(messages.count == expected.count)
      guard messages.count == expected.count else { return }
      #expect(messages[0] == "bad pattern: missing closing parenthesis")
      #expect(messages[1] == "pass needs the identifier of a mailbox")
      #expect(messages[2] == "unknown kind \"route\": expected deep-link, push or delegate")
      #expect(messages[3] == "\"a/b\" cannot name a mailbox: it contains '/'")
      #expect(messages[4] == "a push route cannot decline: only a deep-link route may")
      #expect(messages[5] == "the delegate cannot decline: only a deep-link route may")
      #expect(
        messages[6]
          == "unknown transiting type \"fast\": expected one of file, coordinated-file, session-context, "
          + "session-message, session-file")
      #expect(messages[7] == "a quoted word is not closed (no \" before the line ends)")
      #expect(messages[8] == "a quoted word must be followed by a space or the end of the line")
      #expect(messages[9] == "unexpected \"extra\" after the action")
      #expect(messages[10] == "a deep-link route needs a pattern and an action")
      #expect(messages[11] == "an action is missing: expected pass IDENTIFIER [TRANSITING], print or decline")
      #expect(messages[12] == "a second delegate line (the delegate is set on line 13)")
      #expect(messages[13] == "the pattern is empty")
      #expect(messages[14] == "bad pattern: missing closing parenthesis")
      #expect(error.errors[0].description == "bad.routes:1:24: bad pattern: missing closing parenthesis")
      #expect(error.description.split(separator: "\n").count == expected.count)
    }
  }

  @Test func aLineThatIsNotUTF8IsReportedAndTheRestStillRead() {
    var bytes = Array("push a print\n".utf8)
    bytes += [0x70, 0xFF, 0x0A]
    bytes += Array("push ( print\n".utf8)
    do {
      _ = try RoutesFile.parse(bytes, file: "f")
      Issue.record("parsed")
    } catch {
      #expect(error.errors.map(\.line) == [2, 3])
      #expect(error.errors.first?.message == "the line is not valid UTF-8")
      #expect(error.errors.first?.column == nil)
    }
  }

  /// Errors name the file escaped, since they reach a terminal.
  @Test func anErrorEscapesTheFileName() {
    let error = RoutesFileError(file: "a\u{1B}]0;x\u{7}", line: 3, column: nil, message: "m")
    #expect(!error.description.unicodeScalars.contains("\u{1B}"))
    #expect(error.description.hasSuffix(":3: m"))
  }

  /// A file's routes installed in a router: catchers in file order, decline to the delegate line.
  @Test func aFileInstalledInARouterRoutesAsItSays() throws {
    let router = Router()
    let file = try RoutesFile.parse(Self.good, file: "demo.routes")
    let performed = Mutex<[String]>([])
    let tokens = file.install(in: router) { action, delivery in
      let what = String(decoding: delivery.bytes, as: UTF8.self)
      performed.withLock { $0.append("\(action) <- \(delivery.kind) \(what)") }
    }
    var outcome = router.route(try DeepLink("MYAPP://item/42"))
    #expect(
      outcome.taker
        == .catcher(
          CatcherReference(kind: .deepLink, index: 0, pattern: "myapp://item/\\d+", label: "demo.routes:2")))
    outcome = router.route(try DeepLink("myapp://admin/users"))
    #expect(outcome.taker == .delegate)
    #expect(outcome.declinedBy?.label == "demo.routes:4")
    outcome = router.route(try PushNotification(json: #"{"aps":{"notification_id":"promo-1"}}"#))
    #expect(outcome.taker.isCatcher)
    outcome = router.route(try PushNotification(json: #"{"aps":{}}"#))
    #expect(outcome.taker == .delegate)
    #expect(
      performed.withLock { $0 } == [
        "pass item <- deep-link MYAPP://item/42", "pass fallback file <- deep-link myapp://admin/users",
        #"pass promo coordinated-file <- push {"aps":{"notification_id":"promo-1"}}"#,
        #"pass fallback file <- push {"aps":{}}"#,
      ])
    // Each route is a catcher of its own kind, with its pattern and its line.
    #expect(router.catchers.map(\.kind) == [.deepLink, .deepLink, .deepLink, .deepLink, .push, .push])
    #expect(router.catchers.map(\.pattern) == file.routes.map(\.pattern.source))
    #expect(router.catchers.map(\.label) == file.routes.map { $0.label as String? })
    #expect(router.catchers.map(\.index) == [0, 1, 2, 3, 0, 1])
    // Releasing the tokens removes the routes and the delegate.
    #expect(tokens.count == file.routes.count + 2)
    tokens.forEach { $0.cancel() }
    #expect(router.catchers.isEmpty)
    #expect(router.route(try DeepLink("myapp://item/42")).taker == .unhandled)
  }
}
