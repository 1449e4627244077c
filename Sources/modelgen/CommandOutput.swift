import ArgumentParser
import Foundation
import ModelgenCore

/// Prints diagnostics: text to standard error (as compilers do), json and github to standard output.
struct DiagnosticPrinter {
    var format: DiagnosticFormat

    func print(_ diagnostics: [Diagnostic]) {
        let renderer = DiagnosticRenderer(format: format)
        let handle = format == .text ? FileHandle.standardError : FileHandle.standardOutput
        for diagnostic in diagnostics { handle.write(Data(renderer.render(diagnostic).utf8)) }
    }
}

/// Where a command's single output goes: a file (written atomically) or standard output.
enum CommandOutput {
    static func write(_ text: String, to path: String?) throws {
        guard let path else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        do {
            try OutputWriter.writeAtomically(Data(text.utf8), to: URL(fileURLWithPath: path))
        } catch {
            FileHandle.standardError.write(Data("error: cannot write '\(path)': \(ModelFileChecker.reason(error))\n".utf8))
            throw ExitCode(2)
        }
    }
}
