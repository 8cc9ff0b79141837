extension CaseIterable where Self: Equatable, AllCases == [Self] {
  /// The case `offset` places from this one in declaration order, wrapping around at either end
  /// (the cycling of Tab, `s` and `v`).
  func cycled(by offset: Int) -> Self {
    let all = Self.allCases
    let index = (all.firstIndex(of: self) ?? 0) + offset
    return all[(index % all.count + all.count) % all.count]
  }
}
