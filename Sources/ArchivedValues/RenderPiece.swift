/// Text to write, or a child still to expand.
enum RenderPiece<Child> {
  case text(String)
  case child(Child)
}
