import CLibFuzzer

#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer with the process's command-line flags (`-runs=N`, corpus directories, ...) on `testOneInput`,
/// the harness's `LLVMFuzzerTestOneInput`, and exits with libFuzzer's status.
public func runLibFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}
