/// What the resolver knows about a `$classes` description.
struct ClassDescription {
  var name: String
  var chain: [String]
  var kind: FoundationClass?
}
