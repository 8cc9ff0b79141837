/// Writes binary property lists (`bplist00`) in one linear pass over the value tree.
///
/// Equal strings, numbers, dates, data and archive references are stored once (as Apple's writer
/// does), keyed by type as well as value so that `1`, `1.0` and `true` stay distinct. Containers
/// are never uniqued, which keeps hashing off the hot path.
public struct BinaryPropertyListWriter: Sendable {
  /// The deepest nesting accepted; deeper trees throw ``PropertyListWriteError/nestingTooDeep(limit:)``.
  public var maximumDepth: Int

  public init(maximumDepth: Int = 512) {
    self.maximumDepth = maximumDepth
  }

  /// The binary property list for `value`, as bytes.
  public func bytes(for value: PropertyListValue) throws(PropertyListWriteError) -> [UInt8] {
    var builder = BinaryPropertyListBuilder()
    let top = try add(value, to: &builder, depth: 0)
    return builder.bytes(top: top)
  }

  private func add(_ value: PropertyListValue, to builder: inout BinaryPropertyListBuilder, depth: Int)
    throws(PropertyListWriteError) -> Int
  {
    guard depth <= maximumDepth else { throw .nestingTooDeep(limit: maximumDepth) }
    switch value {
    case .array(let elements):
      let index = builder.reserve()
      var children: [Int] = []
      children.reserveCapacity(elements.count)
      for element in elements { children.append(try add(element, to: &builder, depth: depth + 1)) }
      builder.setArray(index, children)
      return index
    case .dictionary(let entries):
      let index = builder.reserve()
      var keys: [Int] = []
      var values: [Int] = []
      keys.reserveCapacity(entries.count)
      values.reserveCapacity(entries.count)
      for entry in entries { keys.append(builder.string(entry.key)) }
      for entry in entries { values.append(try add(entry.value, to: &builder, depth: depth + 1)) }
      builder.setDictionary(index, keys: keys, values: values)
      return index
    case .string(let text): return builder.string(text)
    case .integer(let number): return builder.integer(number)
    case .unsignedInteger(let number): return builder.unsignedInteger(number)
    case .real(let number): return builder.real(number)
    case .boolean(let flag): return builder.boolean(flag)
    case .date(let date): return builder.date(date)
    case .data(let bytes): return builder.data(bytes)
    case .uid(let reference): return builder.uid(reference)
    }
  }
}
