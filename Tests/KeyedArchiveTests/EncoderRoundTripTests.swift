import Foundation
import Testing

@testable import KeyedArchive

/// Archives written by the encoder read back through the inspector as the same values, so the
/// two halves of the module agree on the format.
@Suite struct EncoderRoundTripTests {
  @Test func plainValuesRoundTrip() throws {
    let value = ArchivedValue.dictionary([
      ArchivedEntry(key: .string("buttonNumber"), value: .integer(1)),
      ArchivedEntry(key: .string("title"), value: .string("hi ☺")),
      ArchivedEntry(
        key: .string("values"), value: .array([.real(2.5), .boolean(true), .null, .unsignedInteger(.max)])),
      ArchivedEntry(key: .string("when"), value: .date(Date(timeIntervalSinceReferenceDate: 12.5))),
      ArchivedEntry(key: .string("bytes"), value: .data(Data([1, 2, 3]))),
    ])
    let inspection = try KeyedArchiveInspector().inspect(try KeyedArchiveEncoder().encodeBytes(value))
    #expect(inspection.isArchive)
    #expect(inspection.root == value)
    #expect(inspection.summary(width: 40) == "{buttonNumber: 1, title: \"hi ☺\", values…")
  }

  @Test func unknownClassesRoundTrip() throws {
    let object = ArchivedObject(
      className: "MyMessage", classChain: ["MyMessage", "NSObject"],
      fields: [
        ArchivedField(key: "count", value: .integer(3)), ArchivedField(key: "name", value: .string("x")),
      ])
    let inspection = try KeyedArchiveInspector().inspect(
      try KeyedArchiveEncoder().encodeBytes(.object(object)))
    #expect(inspection.root == .object(object))
  }
}
