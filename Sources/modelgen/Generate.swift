import ArgumentParser
import Foundation
import ModelgenCore

/// `modelgen generate`: validates the models; writing Swift code is not built yet.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate Swift code from model files (code emission is not built yet: it validates and stops).",
        discussion: """
            Today this command validates the models exactly as 'modelgen validate' does and writes nothing.
            A model with errors exits with status 1; a valid model exits with status 2 and says that
            code emission is not built yet (see README, "Not built yet").
            """
    )

    @Argument(help: "Model files (*.model.yaml or *.model.yml).")
    var files: [String]

    @Option(help: "The directory to write generated files into.")
    var output: String

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
        FileHandle.standardError.write(Data("error: code emission is not built yet; the models are valid and nothing was written to '\(output)'\n".utf8))
        throw ExitCode(2)
    }
}
