import ArgumentParser
import Foundation
import ModelgenCore

/// `modelgen generate`: validates the models; writing Swift code is not built yet.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate Swift code from model files (code emission is not built yet: it validates and stops).",
        discussion: """
            Today this command validates the models exactly as 'modelgen validate' does and writes nothing. A model with errors exits with status 1; a valid model exits with status 2 and says that code emission is not built yet (see README, "Not built yet").
            """
    )

    @OptionGroup var input: ModelInputOptions

    @Option(help: "The directory to write generated files into.")
    var output: String

    func run() throws {
        _ = try input.checkAll()
        FileHandle.standardError.write(Data("error: code emission is not built yet; the models are valid and nothing was written to '\(output)'\n".utf8))
        throw ExitCode(2)
    }
}
