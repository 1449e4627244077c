import ArgumentParser
import Foundation
import ModelgenCore

/// `modelgen validate`: parse and check model files, print every diagnostic.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check model files and print every error and warning.",
        discussion: """
            Diagnostics are printed as PATH:LINE:COLUMN: error|warning|note: MESSAGE on stderr
            (with the source line and a caret when stderr is a terminal).
            --diagnostics json prints one JSON object per line on stdout;
            --diagnostics github prints GitHub Actions annotations on stdout.

            Examples:
              modelgen validate Blog.model.yaml
              modelgen validate Models/*.model.yaml --strict
            """
    )

    @Argument(help: "Model files (*.model.yaml or *.model.yml).")
    var files: [String]

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    @Option(help: "How to print diagnostics: text, json or github.")
    var diagnostics: DiagnosticFormat = .text

    func run() throws {
        var checker = ModelFileChecker(format: diagnostics, strict: strict)
        for file in files {
            _ = checker.check(path: file)
        }
        if checker.exitStatus != 0 { throw ExitCode(checker.exitStatus) }
    }
}
