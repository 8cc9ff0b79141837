import Foundation
import WormholeVocabulary

/// The fixture trees committed beside this file (written by `Fixtures/make-fixtures.py`).
let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .appendingPathComponent("Fixtures").path

/// The path of the committed fixture set `name` (its `Devices` folder).
func fixtureSet(_ name: String) -> FileName { FileName(fixturesDirectory + "/" + name + "/Devices") }
