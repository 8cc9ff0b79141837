import DeviceRouting
import Testing

@Suite struct DeepLinkTests {
  @Test func aURLWithASchemeIsADeepLink() throws {
    let link = try DeepLink("myapp://item/42?x=1#top")
    #expect(link.url == "myapp://item/42?x=1#top")
    #expect(link.scheme == "myapp")
    #expect(try DeepLink("x-my.app+1:rest").scheme == "x-my.app+1")
    #expect(try DeepLink("mailto:a@example.com").scheme == "mailto")
  }

  @Test func textThatIsNotAURLIsRefusedWithTheRule() {
    #expect(DeepLink.problem(with: "") == "it is empty")
    #expect(DeepLink.problem(with: "item/42") == "it has no scheme (no ':', as in myapp://…)")
    #expect(
      DeepLink.problem(with: "1app://x")
        == "it does not start with a scheme (a letter first, as in myapp://…)")
    #expect(
      DeepLink.problem(with: "my_app://x")
        == "it does not start with a scheme (letters, digits, +, - or . and then ':')")
    #expect(
      DeepLink.problem(with: "myapp://a b") == "it contains white space (U+0020); write it percent-encoded")
    #expect(
      DeepLink.problem(with: "myapp://\u{1B}[2J")
        == "it contains a control character (U+001B); write it percent-encoded")
    #expect(throws: DeepLinkError.self) { try DeepLink("nothing") }
  }
}
