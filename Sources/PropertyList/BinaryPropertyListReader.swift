/// Reads `bplist00` property lists over a byte array, checking every offset, count and reference
/// against the file before using it.
///
/// Objects are parsed at most once (memoized by object number), so a file that refers to the same
/// object many times costs no more to read than one that does not. Containers that contain
/// themselves, nesting deeper than ``PropertyListReader/maximumDepth``, and sharing that would
/// expand into far more values than the file holds are refused with a ``PropertyListError``.
struct BinaryPropertyListReader {
  private let bytes: [UInt8]
  private let objectReferenceSize: Int
  private let objectAreaEnd: Int
  private let maximumDepth: Int
  private let expansionLimit: Int
  private var offsets: [Int] = []
  private var cache: [PropertyListValue?] = []
  /// Number of values an object expands into when its shared children are copied out; 0 while
  /// unknown. Saturates at `Int.max`.
  private var expandedSizes: [Int] = []
  private var inProgress: [Bool] = []
  private let topObject: Int
  /// Strings whose unpaired surrogates were replaced by U+FFFD, in the order they were read.
  private(set) var unpairedSurrogates: [UnpairedSurrogate] = []

  /// Validates the header, trailer and offset table.
  init(bytes: [UInt8], maximumDepth: Int) throws(PropertyListError) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
    let length = bytes.count
    guard length >= 8 + 32 + 1 else { throw .truncated(length: length) }
    let trailer = length - 32
    let offsetSize = Int(bytes[trailer + 6])
    let referenceSize = Int(bytes[trailer + 7])
    let objectCount = Self.bigEndian(bytes, at: trailer + 8, width: 8)
    let top = Self.bigEndian(bytes, at: trailer + 16, width: 8)
    let tableOffset = Self.bigEndian(bytes, at: trailer + 24, width: 8)
    guard (1...8).contains(offsetSize) else {
      throw .invalidTrailer(reason: "offset size \(offsetSize) is not between 1 and 8 bytes")
    }
    guard (1...8).contains(referenceSize) else {
      throw .invalidTrailer(reason: "object reference size \(referenceSize) is not between 1 and 8 bytes")
    }
    guard objectCount >= 1 else { throw .invalidTrailer(reason: "the file declares no objects") }
    guard tableOffset >= 9, tableOffset < UInt64(trailer) else {
      throw .invalidTrailer(
        reason: "the offset table is said to start at byte \(tableOffset), outside the file")
    }
    let table = Int(tableOffset)
    let (tableBytes, overflow) = objectCount.multipliedReportingOverflow(by: UInt64(offsetSize))
    guard !overflow, tableBytes <= UInt64(trailer - table) else {
      throw .objectCountTooLarge(count: objectCount, length: length)
    }
    guard top < objectCount else {
      throw .invalidTrailer(reason: "the top object \(top) is not among the \(objectCount) objects")
    }
    let count = Int(objectCount)
    self.objectReferenceSize = referenceSize
    self.objectAreaEnd = table
    self.topObject = Int(top)
    // Every value costs at least one reference or one object byte, so a well-formed file expands
    // into at most about as many values as it has bytes; allow generous room for shared scalars.
    self.expansionLimit = max(4 * length, 1 << 16)
    var offsets = [Int]()
    offsets.reserveCapacity(count)
    for index in 0..<count {
      let offset = Self.bigEndian(bytes, at: table + index * offsetSize, width: offsetSize)
      guard offset >= 8, offset < tableOffset else {
        throw .objectOffsetOutOfRange(object: index, offset: offset)
      }
      offsets.append(Int(offset))
    }
    self.offsets = offsets
    self.cache = Array(repeating: nil, count: count)
    self.expandedSizes = Array(repeating: 0, count: count)
    self.inProgress = Array(repeating: false, count: count)
  }

  /// Parses the top object and everything it refers to.
  mutating func read() throws(PropertyListError) -> PropertyListValue {
    let value = try object(topObject, depth: 0)
    if expandedSizes[topObject] > expansionLimit { throw .expansionTooLarge(limit: expansionLimit) }
    return value
  }

  /// Reads `width` (at most 8) bytes at `offset` as a big-endian unsigned integer; the caller has
  /// checked the range.
  private static func bigEndian(_ bytes: [UInt8], at offset: Int, width: Int) -> UInt64 {
    var result: UInt64 = 0
    for index in offset..<(offset + width) { result = result << 8 | UInt64(bytes[index]) }
    return result
  }

  /// Checks that `count` bytes starting at `offset` lie in the object area.
  private func require(_ count: UInt64, at offset: Int, object: Int) throws(PropertyListError) {
    let available = UInt64(objectAreaEnd - min(offset, objectAreaEnd))
    guard count <= available else {
      throw .objectRunsPastEnd(object: object, offset: offset, needed: count - available)
    }
  }

  /// Reads the element count that follows a marker whose low nibble is `nibble`; `0xF` means an
  /// integer object follows with the real count. Returns the count and where the payload begins.
  private func count(nibble: UInt8, after offset: Int, object: Int) throws(PropertyListError) -> (
    UInt64, Int
  ) {
    let start = offset + 1
    guard nibble == 0xF else { return (UInt64(nibble), start) }
    try require(1, at: start, object: object)
    let marker = bytes[start]
    guard marker & 0xF0 == 0x10 else { throw .unknownMarker(object: object, marker: marker) }
    let width = 1 << Int(marker & 0x0F)
    guard width <= 8 else { throw .integerTooWide(object: object) }
    try require(UInt64(width), at: start + 1, object: object)
    return (Self.bigEndian(bytes, at: start + 1, width: width), start + 1 + width)
  }

  /// Reads `count` object references starting at `offset` (already bounds-checked).
  private func references(count: Int, at offset: Int, object: Int) throws(PropertyListError) -> [Int] {
    var result = [Int]()
    result.reserveCapacity(count)
    let objectCount = offsets.count
    var position = offset
    for _ in 0..<count {
      let reference = Self.bigEndian(bytes, at: position, width: objectReferenceSize)
      guard reference < UInt64(objectCount) else {
        throw .referenceOutOfRange(object: object, reference: reference, objectCount: objectCount)
      }
      result.append(Int(reference))
      position += objectReferenceSize
    }
    return result
  }

  /// Checks that `count` references of this file's size fit at `offset` and returns their byte length.
  private func referenceBytes(_ count: UInt64, at offset: Int, object: Int, lists: UInt64 = 1)
    throws(PropertyListError) -> Int
  {
    let (perList, overflow1) = count.multipliedReportingOverflow(by: UInt64(objectReferenceSize))
    let (total, overflow2) = perList.multipliedReportingOverflow(by: lists)
    guard !overflow1, !overflow2 else {
      throw .objectRunsPastEnd(object: object, offset: offset, needed: UInt64.max)
    }
    try require(total, at: offset, object: object)
    return Int(perList)
  }

  private mutating func object(_ index: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
    if let cached = cache[index] { return cached }
    guard !inProgress[index] else { throw .cyclicContainer(object: index) }
    guard depth <= maximumDepth else { throw .nestingTooDeep(limit: maximumDepth) }
    let offset = offsets[index]
    let marker = bytes[offset]
    let nibble = marker & 0x0F
    let value: PropertyListValue
    var size = 1
    switch marker >> 4 {
    case 0x0:
      switch marker {
      case 0x08: value = .boolean(false)
      case 0x09: value = .boolean(true)
      default: throw .unknownMarker(object: index, marker: marker)
      }
    case 0x1:
      value = try integer(nibble: nibble, at: offset, object: index)
    case 0x2:
      guard nibble == 2 || nibble == 3 else { throw .unknownMarker(object: index, marker: marker) }
      let width = 1 << Int(nibble)
      try require(UInt64(1 + width), at: offset, object: index)
      let raw = Self.bigEndian(bytes, at: offset + 1, width: width)
      value = .real(
        width == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw))
    case 0x3:
      guard marker == 0x33 else { throw .unknownMarker(object: index, marker: marker) }
      try require(9, at: offset, object: index)
      let seconds = Double(bitPattern: Self.bigEndian(bytes, at: offset + 1, width: 8))
      value = .date(ArchiveDate(secondsSince2001: seconds))
    case 0x4:
      let (length, start) = try count(nibble: nibble, after: offset, object: index)
      try require(length, at: start, object: index)
      value = .data(Array(bytes[start..<(start + Int(length))]))
    case 0x5:
      let (length, start) = try count(nibble: nibble, after: offset, object: index)
      try require(length, at: start, object: index)
      value = .string(Self.latin1(bytes[start..<(start + Int(length))]))
    case 0x6:
      let (units, start) = try count(nibble: nibble, after: offset, object: index)
      let (length, overflow) = units.multipliedReportingOverflow(by: 2)
      guard !overflow else { throw .objectRunsPastEnd(object: index, offset: offset, needed: UInt64.max) }
      try require(length, at: start, object: index)
      value = .string(utf16(from: start, units: Int(units), object: index))
    case 0x8:
      let width = Int(nibble) + 1
      try require(UInt64(1 + width), at: offset, object: index)
      if width > 8 {
        for position in (offset + 1)..<(offset + 1 + width - 8) where bytes[position] != 0 {
          throw .integerTooWide(object: index)
        }
      }
      let used = min(width, 8)
      value = .uid(Self.bigEndian(bytes, at: offset + 1 + width - used, width: used))
    case 0xA, 0xC:
      // Sets (0xC) have no case of their own and are read as arrays, in file order.
      let (count, start) = try count(nibble: nibble, after: offset, object: index)
      _ = try referenceBytes(count, at: start, object: index)
      let children = try references(count: Int(count), at: start, object: index)
      inProgress[index] = true
      var elements = [PropertyListValue]()
      elements.reserveCapacity(children.count)
      for child in children {
        elements.append(try object(child, depth: depth + 1))
        size = Self.add(size, expandedSizes[child])
      }
      inProgress[index] = false
      value = .array(elements)
    case 0xD:
      let (count, start) = try count(nibble: nibble, after: offset, object: index)
      let listBytes = try referenceBytes(count, at: start, object: index, lists: 2)
      let keys = try references(count: Int(count), at: start, object: index)
      let values = try references(count: Int(count), at: start + listBytes, object: index)
      inProgress[index] = true
      var entries = [PropertyListEntry]()
      entries.reserveCapacity(keys.count)
      for (keyIndex, valueIndex) in zip(keys, values) {
        guard case .string(let key) = try object(keyIndex, depth: depth + 1) else {
          throw .nonStringKey(object: index)
        }
        entries.append(PropertyListEntry(key: key, value: try object(valueIndex, depth: depth + 1)))
        size = Self.add(size, Self.add(1, expandedSizes[valueIndex]))
      }
      inProgress[index] = false
      value = .dictionary(entries)
    default:
      throw .unknownMarker(object: index, marker: marker)
    }
    guard size <= expansionLimit else { throw .expansionTooLarge(limit: expansionLimit) }
    cache[index] = value
    expandedSizes[index] = size
    return value
  }

  private static func add(_ a: Int, _ b: Int) -> Int {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? Int.max : sum
  }

  private func integer(nibble: UInt8, at offset: Int, object: Int) throws(PropertyListError)
    -> PropertyListValue
  {
    guard nibble <= 4 else { throw .integerTooWide(object: object) }
    let width = 1 << Int(nibble)
    try require(UInt64(1 + width), at: offset, object: object)
    switch width {
    case 1, 2, 4:
      return .integer(Int64(Self.bigEndian(bytes, at: offset + 1, width: width)))
    case 8:
      return .integer(Int64(bitPattern: Self.bigEndian(bytes, at: offset + 1, width: 8)))
    default:
      let high = Self.bigEndian(bytes, at: offset + 1, width: 8)
      let low = Self.bigEndian(bytes, at: offset + 9, width: 8)
      if high == 0 {
        return low > UInt64(Int64.max) ? .unsignedInteger(low) : .integer(Int64(low))
      }
      if high == UInt64.max, low > UInt64(Int64.max) { return .integer(Int64(bitPattern: low)) }
      throw .integerTooWide(object: object)
    }
  }

  /// ASCII strings; bytes above 0x7F (which no conforming writer produces) are read as Latin-1
  /// rather than refused, so the text is still shown.
  private static func latin1(_ slice: ArraySlice<UInt8>) -> String {
    if slice.allSatisfy({ $0 < 0x80 }) { return String(decoding: slice, as: UTF8.self) }
    var scalars = String.UnicodeScalarView()
    for byte in slice { scalars.append(Unicode.Scalar(byte)) }
    return String(scalars)
  }

  /// Big-endian UTF-16. Unpaired surrogates, which Apple's reader keeps (an `NSString` cut inside
  /// an emoji archives one), become U+FFFD and are recorded in ``unpairedSurrogates``.
  private mutating func utf16(from start: Int, units: Int, object: Int) -> String {
    var codeUnits = [UInt16]()
    codeUnits.reserveCapacity(units)
    var position = start
    for _ in 0..<units {
      codeUnits.append(UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1]))
      position += 2
    }
    var first: (unit: Int, value: UInt16)?
    var unpaired = 0
    var unit = 0
    while unit < codeUnits.count {
      let value = codeUnits[unit]
      if (0xD800...0xDBFF).contains(value), unit + 1 < codeUnits.count,
        (0xDC00...0xDFFF).contains(codeUnits[unit + 1])
      {
        unit += 2
        continue
      }
      if (0xD800...0xDFFF).contains(value) {
        if first == nil { first = (unit, value) }
        unpaired += 1
      }
      unit += 1
    }
    if let first {
      unpairedSurrogates.append(
        UnpairedSurrogate(object: object, unit: first.unit, value: first.value, count: unpaired))
    }
    return String(decoding: codeUnits, as: UTF16.self)
  }
}
