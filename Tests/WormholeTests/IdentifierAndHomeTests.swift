import KeyedArchive
import Testing

@testable import Wormhole

@Suite struct IdentifierTests {
  @Test(arguments: [
    ("", "it is empty"), (".", "it names a directory"), ("..", "it names a directory"),
    ("a/b", "it contains '/'"), ("a\u{0}b", "it contains a NUL character"),
  ])
  func badIdentifiersAreRefusedWithAReason(identifier: String, reason: String) {
    #expect(MessageIdentifier.problem(with: identifier) == reason)
    #expect(throws: WormholeError.invalidIdentifier(identifier, reason: reason)) {
      try MessageIdentifier.validate(identifier)
    }
  }

  @Test func lengthLimitLeavesRoomForTheExtension() {
    let longest = String(repeating: "é", count: MessageIdentifier.maximumLength / 2)
    #expect(MessageIdentifier.problem(with: longest) == nil)
    #expect(MessageIdentifier.problem(with: longest + "xx")?.contains("at most 247") == true)
    #expect(MessageIdentifier.fileName(for: longest).utf8.count <= 255)
  }

  @Test func oddButValidIdentifiersAreAccepted() {
    for identifier in ["...", " ", "with space", "日本語", "emoji😀", ".hidden", "a\nb", "-rf"] {
      #expect(MessageIdentifier.problem(with: identifier) == nil, "\(identifier)")
    }
  }

  @Test func fileNamesMapBackToIdentifiers() {
    #expect(MessageIdentifier.identifier(fromFileName: "button.archive") == "button")
    #expect(MessageIdentifier.identifier(fromFileName: ".archive") == nil)
    #expect(MessageIdentifier.identifier(fromFileName: "button.plist") == nil)
    #expect(MessageIdentifier.identifier(fromFileName: ".wormhole-journal") == nil)
  }
}

@Suite struct HomeTests {
  @Test func homeComesFromTheEnvironmentInOrder() {
    #expect(
      WormholeHome.defaultPath(environment: ["WORMHOLE_HOME": "/w", "XDG_DATA_HOME": "/x", "HOME": "/h"])
        == "/w")
    #expect(WormholeHome.defaultPath(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/wormhole")
    #expect(WormholeHome.defaultPath(environment: ["HOME": "/h"]) == "/h/.local/share/wormhole")
    // A relative XDG_DATA_HOME is invalid by the XDG specification and ignored.
    #expect(
      WormholeHome.defaultPath(environment: ["XDG_DATA_HOME": "rel", "HOME": "/h"])
        == "/h/.local/share/wormhole")
  }

  @Test func groupsLiveUnderAppGroup() throws {
    #expect(
      try WormholeHome.directoryPath(
        applicationGroupIdentifier: "group.a", optionalDirectory: "wormhole", home: "/h/")
        == "/h/AppGroup/group.a/wormhole")
    #expect(
      try WormholeHome.directoryPath(
        applicationGroupIdentifier: "group.a", optionalDirectory: nil, home: "/h")
        == "/h/AppGroup/group.a")
  }

  @Test func groupAndDirectoryNamesCannotEscapeTheHome() {
    #expect(throws: WormholeError.self) {
      try WormholeHome.directoryPath(applicationGroupIdentifier: "..", optionalDirectory: nil, home: "/h")
    }
    #expect(throws: WormholeError.self) {
      try WormholeHome.directoryPath(applicationGroupIdentifier: "a/b", optionalDirectory: nil, home: "/h")
    }
    #expect(throws: WormholeError.self) {
      try WormholeHome.directoryPath(
        applicationGroupIdentifier: "g", optionalDirectory: "x/../..", home: "/h")
    }
  }
}

@Suite struct DisplayTextTests {
  @Test func plainWordsStayAsTheyAre() {
    for text in ["button", "group.com.example", "日本語", "emoji😀", "a-b_c.d"] {
      #expect(DisplayText.field(text) == text)
    }
  }

  @Test func anythingATerminalWouldActOnIsEscaped() {
    #expect(DisplayText.field("two words") == #""two words""#)
    #expect(DisplayText.field("") == #""""#)
    #expect(DisplayText.quoted("a\u{1b}[2J") == #""a\u{1b}[2J""#)
    #expect(DisplayText.quoted("c1\u{9b}31m") == #""c1\u{9b}31m""#)
    #expect(DisplayText.quoted("abc\u{202e}cba") == #""abc\u{202e}cba""#)
    #expect(DisplayText.quoted("line\u{2028}sep\nnext\tq\"b\\") == #""line\u{2028}sep\nnext\tq\"b\\""#)
    #expect(DisplayText.quoted("del\u{7f}") == #""del\u{7f}""#)
  }

  @Test func messagesKeepTheirOwnQuotesAndLoseOnlyTheDanger() {
    #expect(
      DisplayText.escaped("cannot read \"a\" in /x\u{1b}[2J\ny") == "cannot read \"a\" in /x\\u{1b}[2J\\ny")
  }

  @Test func errorMessagesUseIt() {
    let error = WormholeError.invalidIdentifier("a/\u{1b}b", reason: "it contains '/'")
    #expect(error.description == #"invalid identifier "a/\u{1b}b": it contains '/'"#)
  }
}
