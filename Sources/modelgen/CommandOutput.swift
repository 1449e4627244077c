import ArgumentParser
import Foundation
import ModelgenCore

/// Prints diagnostics: text to standard error (as compilers do), json and github to standard output.
/// On a terminal, each text diagnostic is followed by its source line and a caret, read from the file it names.
struct DiagnosticPrinter {
    var format: DiagnosticFormat

    func print(_ diagnostics: [Diagnostic]) {
        var sources: [String: [Substring]] = [:]
        if SourceExcerpt.shown(for: format) {
            let files = Set(diagnostics.flatMap { [$0.location.file] + $0.notes.compactMap(\.location?.file) })
            for file in files {
                sources[file] = (try? String(contentsOfFile: file, encoding: .utf8)).map(SourceExcerpt.lines)
            }
        }
        let renderer = DiagnosticRenderer(format: format, sourceLine: { [sources] file, line in
            sources[file].flatMap { SourceExcerpt.line(line, in: $0) }
        })
        let handle = format == .text ? FileHandle.standardError : FileHandle.standardOutput
        for diagnostic in diagnostics { handle.write(Data(renderer.render(diagnostic).utf8)) }
    }
}

/// The source line shown under a text diagnostic on a terminal.
enum SourceExcerpt {
    /// Whether excerpts are shown: text diagnostics, standard error a terminal.
    static func shown(for format: DiagnosticFormat) -> Bool {
        format == .text && isatty(STDERR_FILENO) == 1
    }

    /// A file's lines, split once for all its diagnostics.
    static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// Line `number` (1-based) without a carriage return; nil past the end.
    static func line(_ number: Int, in lines: [Substring]) -> String? {
        guard number >= 1, number <= lines.count else { return nil }
        return String(lines[number - 1]).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
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
