import CPCRE2
import Synchronization

/// A regular expression compiled once by PCRE2 (Perl syntax, UTF-8 with Unicode properties, so
/// `é`, `日本` or an emoji are characters and `\w` knows them), matched under ``MatchLimits`` so
/// that no candidate can keep the caller busy: a match stops with ``MatchOutcome/cutOff(_:)``
/// instead of backtracking for minutes.
///
/// Invalid UTF-8 in a candidate is never an error: it matches nothing in the pattern
/// (`PCRE2_MATCH_INVALID_UTF`), and the input is never passed unchecked (no
/// `PCRE2_NO_UTF_CHECK`).
///
/// Safe to share: the compiled code is read-only after `init` (PCRE2 allows concurrent matches
/// against it), and the one match context and match data block, reused by every match, are behind
/// a lock.
public final class Pattern: @unchecked Sendable {
  /// The pattern as given.
  public let source: String
  /// The limits every match runs under.
  public let limits: MatchLimits
  /// How the pattern matches (case, whole subject).
  public let options: PatternOptions
  /// Whether PCRE2 compiled the pattern to machine code (the limit on steps applies either way).
  public let isCompiledToMachineCode: Bool
  private let code: OpaquePointer
  private let state: Mutex<MatchState>

  /// Compiles `source`.
  /// - Throws: ``PatternError`` with PCRE2's message and the offset, in characters, where it
  ///   stopped; or when PCRE2 cannot allocate what matching needs.
  public init(
    _ source: String, limits: MatchLimits = .interactive, options: PatternOptions = [],
    compileToMachineCode: Bool = true
  ) throws(PatternError) {
    self.source = source
    self.limits = limits
    self.options = options
    var errorCode: Int32 = 0
    var errorOffset = 0
    let options = UInt32(PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF) | options.compileOptions
    var text = source
    let compiled = text.withUTF8 { bytes in
      withNonNullBase(bytes) { base, count in
        pcre2_compile_8(base, count, options, &errorCode, &errorOffset, nil)
      }
    }
    guard let compiled else {
      throw PatternError(
        message: Self.message(for: errorCode), offset: Self.scalarOffset(ofByte: errorOffset, in: source),
        code: errorCode)
    }
    let context = pcre2_match_context_create_8(nil)
    let data = pcre2_match_data_create_8(1, nil)
    guard let context, let data else {
      if let context { pcre2_match_context_free_8(context) }
      if let data { pcre2_match_data_free_8(data) }
      pcre2_code_free_8(compiled)
      throw PatternError(message: "out of memory for matching", offset: 0, code: PCRE2_ERROR_NOMEMORY)
    }
    pcre2_set_depth_limit_8(context, limits.depth)
    pcre2_set_heap_limit_8(context, limits.heapKibibytes)
    code = compiled
    state = Mutex(MatchState(context: context, data: data))
    isCompiledToMachineCode =
      compileToMachineCode && pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE)) == 0
  }

  deinit {
    state.withLock { state in
      pcre2_match_data_free_8(state.data)
      pcre2_match_context_free_8(state.context)
    }
    pcre2_code_free_8(code)
  }

  /// Whether the pattern matches anywhere in `candidate`, or was cut off trying.
  public func match(_ candidate: String) -> MatchOutcome {
    var text = candidate
    return text.withUTF8 { match(utf8: $0) }
  }

  /// Whether the pattern matches anywhere in `bytes`, which need not be valid UTF-8 (an invalid
  /// sequence matches nothing), or was cut off trying.
  public func match(utf8 bytes: UnsafeBufferPointer<UInt8>) -> MatchOutcome {
    // A pattern matched against the whole subject has one start position: it gets every step.
    let starts = options.contains(.wholeSubject) ? 0 : bytes.count
    let steps = limits.stepsPerStart(subjectLength: starts)
    let result = state.withLock { state in
      pcre2_set_match_limit_8(state.context, steps)
      return withNonNullBase(bytes) { base, count in
        pcre2_match_8(code, base, count, 0, 0, state.data, state.context)
      }
    }
    if result >= 0 { return .match }
    switch result {
    case PCRE2_ERROR_NOMATCH: return .noMatch
    case PCRE2_ERROR_MATCHLIMIT: return .cutOff(.matchLimit)
    case PCRE2_ERROR_DEPTHLIMIT: return .cutOff(.depthLimit)
    case PCRE2_ERROR_HEAPLIMIT: return .cutOff(.heapLimit)
    case PCRE2_ERROR_JIT_STACKLIMIT: return .cutOff(.jitStackLimit)
    default: return .cutOff(.failed(code: result, message: Self.message(for: result)))
    }
  }

  /// PCRE2's text for an error code.
  private static func message(for code: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 256)
    let length = buffer.withUnsafeMutableBufferPointer {
      pcre2_get_error_message_8(code, $0.baseAddress, $0.count)
    }
    guard length > 0 else { return "PCRE2 error \(code)" }
    return String(decoding: buffer[..<Int(length)], as: UTF8.self)
  }

  /// The number of Unicode scalars of `text` that start before its UTF-8 byte `offset`.
  private static func scalarOffset(ofByte offset: Int, in text: String) -> Int {
    var bytes = 0
    var scalars = 0
    for scalar in text.unicodeScalars {
      guard bytes < offset else { break }
      bytes += UTF8.width(scalar)
      scalars += 1
    }
    return scalars
  }
}

/// The match context (limits) and the match data block PCRE2 writes into; one of each per
/// pattern, reused by every match.
private struct MatchState: @unchecked Sendable {
  let context: OpaquePointer
  let data: OpaquePointer
}

/// PCRE2 wants a pointer even for an empty subject or pattern; an empty buffer may have none.
private func withNonNullBase<Result>(
  _ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafePointer<UInt8>, Int) -> Result
) -> Result {
  if let base = bytes.baseAddress { return body(base, bytes.count) }
  let empty: UInt8 = 0
  return withUnsafePointer(to: empty) { body($0, 0) }
}
