import Foundation
import Testing

@testable import PropertyList

/// The fixtures shared with the keyed-archive tests (written by Apple's Foundation on macOS).
let fixturesDirectory = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("KeyedArchiveTests/Fixtures")

func fixtureNames() -> [String] {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: fixturesDirectory.path)) ?? []
  return names.filter { $0.hasSuffix(".archive") || $0.hasSuffix(".plist") }.sorted()
}

/// A canonical JSON form of a property list that Python can build the same way from `plistlib`.
func canonicalJSON(_ value: PropertyListValue) -> String {
  switch value {
  case .string(let text): return "{\"s\":\(jsonString(text))}"
  case .integer(let number): return "{\"i\":\(number)}"
  case .unsignedInteger(let number): return "{\"i\":\(number)}"
  case .real(let number): return "{\"r\":\(number.isFinite ? "\(number)" : "null")}"
  case .boolean(let flag): return "{\"b\":\(flag)}"
  case .date(let date): return "{\"date\":\(date.secondsSince2001)}"
  case .data(let data): return "{\"data\":\"\(data.map { String(format: "%02x", $0) }.joined())\"}"
  case .uid(let number): return "{\"uid\":\(number)}"
  case .array(let elements): return "{\"a\":[\(elements.map(canonicalJSON).joined(separator: ","))]}"
  case .dictionary(let entries):
    let pairs = entries.map { "[\(jsonString($0.key)),\(canonicalJSON($0.value))]" }
    return "{\"d\":[\(pairs.joined(separator: ","))]}"
  }
}

func jsonString(_ text: String) -> String {
  var out = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": out += "\\\""
    case "\\": out += "\\\\"
    case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out + "\""
}

/// Loads every fixture with Python's plistlib, builds the same canonical form (turning XML
/// `CF$UID` dictionaries into UIDs, as Apple's readers do), and compares structurally with ours.
private let pythonCrossCheck = #"""
  import datetime, json, plistlib, sys
  def canon(v):
      if isinstance(v, bool): return {"b": v}
      if isinstance(v, int): return {"i": v}
      if isinstance(v, float): return {"r": v}
      if isinstance(v, str): return {"s": v}
      if isinstance(v, bytes): return {"data": v.hex()}
      if isinstance(v, plistlib.UID): return {"uid": v.data}
      if isinstance(v, datetime.datetime):
          return {"date": (v - datetime.datetime(2001, 1, 1)).total_seconds()}
      if isinstance(v, list): return {"a": [canon(x) for x in v]}
      if isinstance(v, dict):
          if list(v.keys()) == ["CF$UID"] and isinstance(v["CF$UID"], int): return {"uid": v["CF$UID"]}
          return {"d": [[k, canon(x)] for k, x in v.items()]}
      raise TypeError(type(v))
  ours = json.load(open(sys.argv[1]))
  bad = 0
  for name, mine in ours.items():
      with open(sys.argv[2] + "/" + name, "rb") as f:
          theirs = canon(plistlib.load(f))
      if theirs != mine:
          bad += 1
          print("MISMATCH", name)
          print(" plistlib:", json.dumps(theirs)[:600])
          print(" ours:    ", json.dumps(mine)[:600])
  print("checked", len(ours), "mismatches", bad)
  sys.exit(1 if bad else 0)
  """#

@Test func propertyListLayerAgreesWithPythonPlistlib() throws {
  let names = fixtureNames()
  #expect(names.count >= 46)
  var parts = [String]()
  for name in names {
    let bytes = try [UInt8](Data(contentsOf: fixturesDirectory.appendingPathComponent(name)))
    let document = try PropertyListReader().read(bytes)
    parts.append("\(jsonString(name)):\(canonicalJSON(document.root))")
  }
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "plist-crosscheck-\(getpid())")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  let oursFile = directory.appendingPathComponent("ours.json")
  let scriptFile = directory.appendingPathComponent("check.py")
  try Data("{\(parts.joined(separator: ","))}".utf8).write(to: oursFile)
  try Data(pythonCrossCheck.utf8).write(to: scriptFile)

  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["python3", scriptFile.path, oursFile.path, fixturesDirectory.path]
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = pipe
  try process.run()
  let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  #expect(process.terminationStatus == 0, "plistlib disagrees:\n\(output)")
  #expect(output.contains("checked \(names.count) mismatches 0"), "\(output)")
}
