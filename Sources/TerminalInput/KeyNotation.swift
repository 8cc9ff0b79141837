/// Keys written as text, Vim style: `jj<Enter><C-d><Esc>:q<Enter>`.
///
/// Used by `snapshot --keys`, the keymap table and the help overlay. Plain characters stand
/// for themselves; everything else is a name in angle brackets, case-insensitive:
/// `<Enter>` (`<CR>`, `<Return>`), `<Esc>`, `<Tab>`, `<S-Tab>`, `<Up>`, `<Down>`, `<Left>`,
/// `<Right>`, `<PgUp>`, `<PgDn>`, `<Home>`, `<End>`, `<Ins>`, `<Del>`, `<BS>`, `<Space>`,
/// `<F1>`...`<F63>`, `<C-x>` for Control with a letter or one of `@[\]^_`, and `<lt>` for a
/// literal `<`. `<C-i>`, `<C-m>`, `<C-h>` and `<C-[>` read as `<Tab>`, `<Enter>`, `<BS>` and
/// `<Esc>`, because terminals send the same bytes for them.
public enum KeyNotation {
  /// The keys `text` stands for.
  public static func keys(from text: String) throws(KeyNotationError) -> [Key] {
    var keys: [Key] = []
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      guard character == "<" else {
        keys.append(.character(character))
        index = text.index(after: index)
        continue
      }
      let nameStart = text.index(after: index)
      guard let close = text[nameStart...].firstIndex(of: ">") else {
        throw .unclosed(String(text[index...]))
      }
      let name = String(text[nameStart..<close])
      guard let key = key(named: name) else { throw .unknownName(name) }
      keys.append(key)
      index = text.index(after: close)
    }
    return keys
  }

  /// The notation for `keys`, canonical names only; `keys(from:)` reads it back.
  public static func text(for keys: some Sequence<Key>) -> String {
    keys.map { text(for: $0) }.joined()
  }

  /// The notation for one key: `j`, `<Enter>`, `<C-d>`, `<lt>`.
  public static func text(for key: Key) -> String {
    switch key {
    case .character("<"): return "<lt>"
    case .character(" "): return "<Space>"
    case .character(let character): return String(character)
    case .function(let number): return "<F\(number)>"
    case .control(let character): return "<C-\(character)>"
    default:
      let name = names.first { $0.key == key }?.name ?? "?"
      return "<\(name)>"
    }
  }

  /// Named keys, the canonical name of each first.
  static let names: [(name: String, key: Key)] = [
    ("Enter", .enter), ("CR", .enter), ("Return", .enter),
    ("Esc", .escape), ("Escape", .escape),
    ("Tab", .tab), ("S-Tab", .backTab), ("BackTab", .backTab),
    ("Up", .up), ("Down", .down), ("Left", .left), ("Right", .right),
    ("PgUp", .pageUp), ("PageUp", .pageUp), ("PgDn", .pageDown), ("PageDown", .pageDown),
    ("Home", .home), ("End", .end),
    ("Ins", .insert), ("Insert", .insert),
    ("Del", .delete), ("Delete", .delete),
    ("BS", .backspace), ("Backspace", .backspace),
    ("Space", .character(" ")), ("lt", .character("<")),
  ]

  /// The key a name in angle brackets stands for, or nil.
  static func key(named name: String) -> Key? {
    let lowered = name.lowercased()
    if let entry = names.first(where: { $0.name.lowercased() == lowered }) { return entry.key }
    if lowered.hasPrefix("c-"), lowered.count == 3, let last = lowered.last {
      return control(last)
    }
    if lowered.hasPrefix("f"), let number = Int(lowered.dropFirst()), (0...63).contains(number),
      lowered.dropFirst().allSatisfy(\.isASCII)
    {
      return .function(number)
    }
    return nil
  }

  /// Control with `character`, folded the way terminals fold it (`i` is Tab, `m` Enter...),
  /// or nil for a character Control cannot combine with.
  static func control(_ character: Character) -> Key? {
    switch character {
    case "i": return .tab
    case "m": return .enter
    case "h": return .backspace
    case "[": return .escape
    case "a"..."z", "@", "\\", "]", "^", "_":
      guard character.isASCII else { return nil }
      return .control(character)
    default: return nil
    }
  }
}

/// Why a key notation could not be read, said so that it can be fixed.
public enum KeyNotationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// `<Name>` is not a key name.
  case unknownName(String)
  /// A `<` with no `>` after it.
  case unclosed(String)

  public var description: String {
    switch self {
    case .unknownName(let name):
      return
        "unknown key <\(name)>: use a name such as <Enter>, <Esc>, <Tab>, <S-Tab>, <Up>, <PgDn>, "
        + "<Del>, <Space>, <F1> or <C-d>, or <lt> for a literal '<'"
    case .unclosed(let rest):
      return "'\(rest)' has no closing '>': write <lt> for a literal '<'"
    }
  }
}
