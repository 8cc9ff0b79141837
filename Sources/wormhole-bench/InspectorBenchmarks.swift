import Foundation
import KeyedArchive

/// Decode + render per message, ours (`KeyedArchiveInspector` + text tree) against Foundation's
/// `NSKeyedUnarchiver` (+ `description`) on archives Foundation can decode, and resident memory
/// growth against input size.
func inspectorBenchmarks() throws -> [BenchmarkRecord] {
  let small = try archive(
    .dictionary([
      ArchivedEntry(key: .string("buttonNumber"), value: .integer(1)),
      ArchivedEntry(key: .string("title"), value: .string("hi")),
    ]))
  let thousand = try archive(.array((0..<1_000).map(record)))
  // About 1 MB: records with longer text.
  var large = try archive(.array((0..<6_000).map { record($0, padding: 120) }))
  if large.count < 900_000 { large = try archive(.array((0..<9_000).map { record($0, padding: 120) })) }

  var records = [BenchmarkRecord]()
  for (name, bytes, repeats, rounds) in [
    ("inspector.decode_render.small_message", small, 400, 15),
    ("inspector.decode_render.array_1000_dictionaries", thousand, 4, 9),
    ("inspector.decode_render.archive_1mb", large, 1, 5),
  ] {
    try checkBothDecode(bytes)
    let times = try alternate(
      rounds: rounds,
      {
        for _ in 0..<repeats { _ = try ours(bytes) }
      },
      baseline: {
        for _ in 0..<repeats { _ = try foundation(bytes) }
      })
    var record = BenchmarkRecord(
      name: name, unit: "s/message", value: times.ours / Double(repeats),
      baselineName: "Foundation NSKeyedUnarchiver + description", baseline: times.baseline / Double(repeats),
      higherIsBetter: false, target: 5)
    record.detail["input_bytes"] = Double(bytes.count)
    records.append(record)
  }

  // Memory: resident growth (after trimming malloc's free pages) while one decoded archive is
  // held, per input byte, at two sizes: the ratio staying flat shows memory proportional to input.
  // The rendered text is measured separately.
  for (name, bytes) in [("array_1000_dictionaries", thousand), ("archive_1mb", large)] {
    let before = trimmedResidentBytes()
    let residentBefore = residentBytes()
    let held = try KeyedArchiveInspector().inspect(bytes)
    let decoded = trimmedResidentBytes()
    let text = held.textTree()
    let rendered = trimmedResidentBytes()
    let residentAfter = residentBytes()
    let foundationBefore = trimmedResidentBytes()
    let foundationHeld = try foundationObject(bytes)
    let foundationAfter = trimmedResidentBytes()
    withExtendedLifetime((held, text, foundationHeld)) {}
    var memory = BenchmarkRecord(
      name: "inspector.resident_per_input_byte.\(name)", unit: "bytes/byte",
      value: (decoded - before) / Double(bytes.count),
      baselineName: "Foundation NSKeyedUnarchiver object graph",
      baseline: (foundationAfter - foundationBefore) / Double(bytes.count), higherIsBetter: false, target: nil
    )
    memory.detail["input_bytes"] = Double(bytes.count)
    memory.detail["decoded_resident_bytes"] = decoded - before
    memory.detail["rendered_text_resident_bytes"] = rendered - decoded
    memory.detail["resident_growth_bytes"] = max(residentAfter - residentBefore, 0)
    records.append(memory)
  }
  return records
}

private func record(_ index: Int) -> ArchivedValue { record(index, padding: 0) }

private func record(_ index: Int, padding: Int) -> ArchivedValue {
  .dictionary([
    ArchivedEntry(key: .string("id"), value: .integer(Int64(index))),
    ArchivedEntry(
      key: .string("name"), value: .string("item \(index)" + String(repeating: "x", count: padding))),
    ArchivedEntry(key: .string("score"), value: .real(Double(index) * 0.5)),
    ArchivedEntry(key: .string("enabled"), value: .boolean(index % 2 == 0)),
  ])
}

private func archive(_ value: ArchivedValue) throws -> [UInt8] {
  try KeyedArchiveEncoder().encodeBytes(value)
}

private func ours(_ bytes: [UInt8]) throws -> Int {
  let inspection = try KeyedArchiveInspector().inspect(bytes)
  return inspection.textTree().utf8.count
}

private func foundation(_ bytes: [UInt8]) throws -> Int {
  let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
  unarchiver.requiresSecureCoding = false
  let object = unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
  unarchiver.finishDecoding()
  return String(describing: object).utf8.count
}

private func foundationObject(_ bytes: [UInt8]) throws -> Any? {
  let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
  unarchiver.requiresSecureCoding = false
  defer { unarchiver.finishDecoding() }
  return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
}

/// Resident bytes after asking malloc to hand free pages back to the system (glibc's
/// `malloc_trim`, looked up at run time), so that growth measured from here is memory really in use.
private func trimmedResidentBytes() -> Double {
  if let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") {
    typealias Trim = @convention(c) (Int) -> Int32
    _ = unsafeBitCast(symbol, to: Trim.self)(0)
  }
  return residentBytes()
}

private struct BenchmarkSetupError: Error, CustomStringConvertible {
  var description: String
}

/// Both decoders must actually decode the archive, or the comparison means nothing.
private func checkBothDecode(_ bytes: [UInt8]) throws {
  let inspection = try KeyedArchiveInspector().inspect(bytes)
  guard inspection.isArchive else {
    throw BenchmarkSetupError(
      description:
        "the inspector did not resolve the test archive: \(inspection.notArchiveReason.map(String.init(describing:)) ?? "")"
    )
  }
  let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
  unarchiver.requiresSecureCoding = false
  guard unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) != nil else {
    throw BenchmarkSetupError(description: "Foundation could not decode the test archive")
  }
}
