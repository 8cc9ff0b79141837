import ArchivedValues
import WormholeVocabulary

/// A JSON object from the broker, read field by field with typed errors. Unknown fields are
/// ignored (a later version may add some); `version` must be ``FleetProtocol/version``. An object
/// that names a key twice, at any depth, is refused: a filter or proxy that reads the first one
/// would see another request than the bridge applies.
struct JSONObject {
  private var fields: [String: ArchivedValue] = [:]

  /// Parses `payload`, at most `limit` bytes of UTF-8 JSON holding an object without a repeated
  /// key (unless `allowingDuplicateKeys`, when the last one wins), and checks its version unless
  /// told not to.
  init(payload: [UInt8], limit: Int, checkingVersion: Bool = true, allowingDuplicateKeys: Bool = false)
    throws(FleetProtocolError)
  {
    guard payload.count <= limit else { throw .payloadTooLarge(byteCount: payload.count, limit: limit) }
    let value: ArchivedValue
    do {
      value = try payload.withUnsafeBufferPointer { bytes throws(JSONParseError) in
        try JSONParser(maximumDepth: 8, refusesDuplicateKeys: !allowingDuplicateKeys).parse(bytes)
      }
    } catch {
      throw .notJSON(reason: error.description)
    }
    guard case .dictionary(let entries) = value else { throw .notAnObject }
    for entry in entries {
      guard case .string(let key) = entry.key else { throw .notAnObject }
      fields[key] = entry.value
    }
    guard checkingVersion else { return }
    switch fields["version"] {
    case nil: throw .missingField("version")
    case .integer(FleetProtocol.version)?: break
    case .integer(let found)?: throw .unsupportedVersion(found: String(found))
    case .some: throw .wrongType(field: "version", expected: "an integer")
    }
  }

  private init(fields: [String: ArchivedValue]) { self.fields = fields }

  /// The object in `field` (its keys already checked, no version of its own), `nil` when it is
  /// absent or `null`.
  func optionalObject(_ field: String) throws(FleetProtocolError) -> JSONObject? {
    switch fields[field] {
    case nil, .null?: return nil
    case .dictionary(let entries)?:
      var inner: [String: ArchivedValue] = [:]
      for entry in entries {
        guard case .string(let key) = entry.key else { throw .wrongType(field: field, expected: "an object") }
        inner[key] = entry.value
      }
      return JSONObject(fields: inner)
    case .some: throw .wrongType(field: field, expected: "an object")
    }
  }

  /// Whether `field` is absent or `null`.
  func isAbsent(_ field: String) -> Bool {
    switch fields[field] {
    case nil, .null?: true
    default: false
    }
  }

  func string(_ field: String) throws(FleetProtocolError) -> String { try required(field, optionalString) }

  /// The string in `field`, `nil` when it is absent or `null`.
  func optionalString(_ field: String) throws(FleetProtocolError) -> String? {
    switch fields[field] {
    case nil, .null?: return nil
    case .string(let text)?: return text
    case .some: throw .wrongType(field: field, expected: "a string")
    }
  }

  func boolean(_ field: String) throws(FleetProtocolError) -> Bool {
    switch fields[field] {
    case nil, .null?: throw .missingField(field)
    case .boolean(let value)?: return value
    case .some: throw .wrongType(field: field, expected: "true or false")
    }
  }

  /// The non-negative integer in `field`.
  func count(_ field: String) throws(FleetProtocolError) -> Int64 { try required(field, optionalCount) }

  /// What `read` finds in `field`; ``FleetProtocolError/missingField(_:)`` when it finds nothing
  /// (the field is absent or `null`).
  private func required<Value>(
    _ field: String, _ read: (String) throws(FleetProtocolError) -> Value?
  ) throws(FleetProtocolError) -> Value {
    guard let value = try read(field) else { throw .missingField(field) }
    return value
  }

  /// The integer in `field`, `nil` when it is absent or `null`.
  func optionalInteger(_ field: String) throws(FleetProtocolError) -> Int64? {
    switch fields[field] {
    case nil, .null?: return nil
    case .integer(let value)?: return value
    case .some: throw .wrongType(field: field, expected: "an integer")
    }
  }

  /// The non-negative integer in `field`, `nil` when it is absent or `null`.
  func optionalCount(_ field: String) throws(FleetProtocolError) -> Int64? {
    switch fields[field] {
    case nil, .null?: return nil
    case .integer(let value)? where value >= 0: return value
    case .some: throw .wrongType(field: field, expected: "a non-negative integer")
    }
  }

  /// The bytes of the lowercase-hex string in `field` (as `JSONText.nameBytes` writes a name that
  /// is not UTF-8), `nil` when it is absent or `null`.
  func optionalHexBytes(_ field: String) throws(FleetProtocolError) -> [UInt8]? {
    guard let text = try optionalString(field) else { return nil }
    guard !text.isEmpty, let bytes = JSONText.bytes(hex: text, lowercaseOnly: true) else {
      throw .invalidField(field: field, reason: "an even number of lowercase hexadecimal digits is expected")
    }
    return bytes
  }
}
