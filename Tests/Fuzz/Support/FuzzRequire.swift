#if canImport(Glibc)
import Glibc
#endif

/// Checks an invariant of the code under test. A violation is a finding: it prints why and aborts, which
/// libFuzzer reports as a crash and saves the input as an artifact.
///
/// Harnesses never trap on their own account; only the code under test (a trap inside it) or a broken invariant
/// (this function) ends a run.
public func fuzzRequire(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                        file: StaticString = #fileID, line: UInt = #line) {
    if condition() { return }
    let text = "fuzz invariant violated at \(file):\(line): \(message())\n"
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

/// Copies libFuzzer's input into an array (libFuzzer may pass a null pointer for the empty input).
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}
