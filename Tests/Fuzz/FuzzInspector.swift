// libFuzzer entry point for the archive inspector: bytes go through the property-list reader, the
// keyed-archive resolver and all three renderings, and then into any embedded property list.
// Built and run by .ci/fuzz (not part of the SwiftPM build).
import KeyedArchive
import PropertyList

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInspector(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: start, count: count))
  inspectAndRender(bytes, nesting: 0)
  return 0
}

private func inspectAndRender(_ bytes: [UInt8], nesting: Int) {
  guard let inspection = try? KeyedArchiveInspector().inspect(bytes) else { return }
  _ = inspection.textTree()
  _ = inspection.json()
  _ = inspection.summary(width: 80)
  _ = inspection.summary(width: 1)
  guard nesting < 2 else { return }
  for embedded in inspection.embeddedPropertyLists.prefix(4) {
    inspectAndRender([UInt8](embedded.data), nesting: nesting + 1)
  }
}
