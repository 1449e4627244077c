import ArgumentParser
import Foundation
import ModelgenCore

/// `modelgen format`: rewrite model files in the canonical layout, comments kept.
struct Format: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "format",
        abstract: "Rewrite model files in the canonical layout (key order, short forms, spacing), keeping comments.",
        discussion: """
            Keys go in the format's order, attributes that only have a type (and optionality) take the short form, properties that fit on a line are written { ... }, entities are separated by blank lines. Declaration order, values and comments are kept. Formatting twice changes nothing. A file that does not parse as a model is left alone (exit 1).

            Examples:
              modelgen format Models/*.model.yaml
              modelgen format --check Models/*.model.yaml    # CI: exit 1 with a diff when a file is not formatted
            """
    )

    @Argument(help: "Model files to format in place.")
    var files: [String]

    @Flag(help: "Write nothing; exit 1 with a diff for each file that is not in the canonical layout.")
    var check = false

    @Option(help: "How to print diagnostics: text, json or github.")
    var diagnostics: DiagnosticFormat = .text

    func run() throws {
        var status: Int32 = 0
        let printer = DiagnosticPrinter(format: diagnostics)
        for path in files {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("error: cannot read '\(path)'\n".utf8))
                status = max(status, 2)
                continue
            }
            switch ModelFormatter.format(data: data, path: path) {
            case .failure(let problems):
                printer.print(problems.all)
                status = max(status, 1)
            case .success(let text):
                guard Data(text.utf8) != data else { continue }
                if check {
                    print(UnifiedDiff.diff(old: String(decoding: data, as: UTF8.self), new: text, oldName: path, newName: path), terminator: "")
                    status = max(status, 1)
                } else {
                    try CommandOutput.write(text, to: path)
                    FileHandle.standardError.write(Data("formatted \(path)\n".utf8))
                }
            }
        }
        if status != 0 { throw ExitCode(status) }
    }
}
