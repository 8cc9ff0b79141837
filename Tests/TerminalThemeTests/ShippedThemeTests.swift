import Foundation
import ShippedThemes
import TerminalScreen
import Testing

@testable import TerminalTheme

@Suite struct ShippedThemeTests {
  static let themesDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Themes").path

  @Test(arguments: ShippedThemes.files.map(\.name))
  func everyShippedThemeLoadsFromTheBinaryAndGivesEveryRole(name: String) throws {
    let theme = try ThemeCatalog(userDirectory: nil).theme(name)
    #expect(theme.name == name)
    let missing = Theme.knownRoles.filter { theme.styles[$0] == nil && !theme.inherited.contains($0) }
    #expect(missing.isEmpty, "\(name).theme neither styles nor inherits \(missing)")
  }

  @Test func theEmbeddedBytesAreTheFilesInThemes() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: Self.themesDirectory)
      .filter { $0.hasSuffix(".theme") }.sorted()
    #expect(files == ShippedThemes.files.map { $0.name + ".theme" }.sorted(), "embed every Themes/*.theme")
    for (name, bytes) in ShippedThemes.files {
      let onDisk = try Data(contentsOf: URL(fileURLWithPath: Self.themesDirectory + "/" + name + ".theme"))
      #expect([UInt8](onDisk) == bytes)
    }
  }

  @Test func darkIsTheDefault() {
    #expect(ThemeCatalog.shippedNames.first == "dark")
    #expect(ThemeCatalog.shippedDefault.name == "dark")
    #expect(ThemeCatalog.shippedDefault != .fallback)
  }

  /// Without colour (NO_COLOR, TERM=dumb) every shipped theme still tells apart what matters.
  @Test(arguments: ShippedThemes.files.map(\.name))
  func meaningSurvivesTheLossOfColour(name: String) throws {
    let theme = try ThemeCatalog(userDirectory: nil).theme(name).reduced(to: .none)
    let pairs: [(StyleRole, StyleRole)] = [
      ("traffic.failed", "traffic.passed"), ("list.selected", "list"), ("list.error", "list"),
      ("contents.added", "contents.removed"), ("status.error", "status"),
      ("form.field.focused", "form.field"),
      ("traffic.unrecorded", "traffic.passed"),
    ]
    for (one, other) in pairs {
      #expect(
        theme.style(for: one).attributes != theme.style(for: other).attributes,
        "\(name): \(one) and \(other) look the same without colour")
    }
  }

  /// The colour-blind theme never tells failure from success, or removal from addition, by
  /// colour alone: the attributes differ even with every colour shown.
  @Test func theColorblindThemeCarriesMeaningInAttributes() throws {
    let theme = try ThemeCatalog(userDirectory: nil).theme("colorblind")
    let pairs: [(StyleRole, StyleRole)] = [
      ("traffic.failed", "traffic.passed"), ("contents.added", "contents.removed"),
      ("status.error", "status.notice"), ("list.error", "list.changed"),
      ("traffic.failed", "traffic.unrecorded"),
    ]
    for (one, other) in pairs {
      #expect(theme.style(for: one).attributes != theme.style(for: other).attributes, "\(one) vs \(other)")
    }
    let okabeIto: Set<String> = [
      "e69f00", "56b4e9", "009e73", "f0e442", "0072b2", "d55e00", "cc79a7", "999999",
    ]
    for style in theme.styles.values {
      for color in [style.foreground, style.background] {
        if case .rgb(let red, let green, let blue) = color {
          let hex = [red, green, blue].map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }
            .joined()
          #expect(okabeIto.contains(hex), "#\(hex) is not in the Okabe-Ito palette")
        }
      }
    }
  }
}
