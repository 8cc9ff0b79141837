/// A renderer that never recurses, so values of any depth render on any thread's stack: it
/// writes a value's own text with ``emit(_:)`` and queues its children with ``queue(_:)``, and
/// ``drain()`` expands what is queued in order.
protocol QueuedRenderer {
  /// What the renderer expands: a value, or a value with the indentation of its line.
  associatedtype Child
  var output: String { get set }
  /// The pieces the child being expanded produced, in order.
  var pending: [RenderPiece<Child>] { get set }
  /// Whether nothing more needs writing (a summary longer than it can show).
  var isFull: Bool { get }
  /// Writes `child`'s own text and queues its children.
  mutating func expand(_ child: Child)
}

extension QueuedRenderer {
  var isFull: Bool { false }

  mutating func emit(_ text: String) {
    if case .text(let last)? = pending.last {
      pending[pending.count - 1] = .text(last + text)
    } else {
      pending.append(.text(text))
    }
  }

  /// `text` quoted and escaped for a terminal.
  mutating func quoted(_ text: String) {
    var literal = ""
    Format.quoted(text, into: &literal)
    emit(literal)
  }

  mutating func queue(_ child: Child) { pending.append(.child(child)) }

  /// Writes `child` and everything below it to ``output``.
  mutating func render(_ child: Child) {
    queue(child)
    drain()
  }

  /// Writes everything queued, and everything that queues in turn, to ``output``.
  mutating func drain() {
    var stack: [RenderPiece<Child>] = []
    while true {
      stack.append(contentsOf: pending.reversed())
      pending.removeAll(keepingCapacity: true)
      guard !isFull, let piece = stack.popLast() else { return }
      switch piece {
      case .text(let text): output.append(text)
      case .child(let child): expand(child)
      }
    }
  }
}
