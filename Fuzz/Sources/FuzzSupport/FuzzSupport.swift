import CFuzzer
import Foundation

/// Stops the run with the property that failed and the input that broke it (libFuzzer then saves it
/// as `crash-…` for the regression test).
public func violated(_ property: String, _ details: String) -> Never {
    FileHandle.standardError.write(Data("fuzz property violated: \(property)\n\(details)\n".utf8))
    abort()
}

/// The fuzzer's bytes.
public func bytes(_ start: UnsafeRawPointer, _ count: Int) -> Data { Data(bytes: start, count: count) }

/// The text after a model file's import header comment (`# Imported from …`), for comparing imports.
public func withoutHeader(_ text: String) -> String {
    text.split(separator: "\n", omittingEmptySubsequences: false).drop { $0.hasPrefix("#") }.joined(separator: "\n")
}

/// Runs libFuzzer's loop over `test` (LLVMFuzzerTestOneInput's role): each target's entry point.
public func runFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
                      _ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments, test)
}
