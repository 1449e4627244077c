import ArgumentParser
import Foundation
import ModelgenCore

extension CodegenMode: ExpressibleByArgument {}

/// `modelgen import`: a Core Data model made in Xcode, as a model file.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn a Core Data model (.xcdatamodeld, .xcdatamodel or its contents XML) into a model file.",
        discussion: """
            Reads the current version of a .xcdatamodeld (named by .xccurrentversion) or the one --version names. What the model format has no place for is kept in userInfo (as coreData.<name>) or reported as a warning at its XML position. The result is validated before it is written; an error writes nothing.

            Examples:
              modelgen import Model.xcdatamodeld --output Model.model.yaml
              modelgen import Model.xcdatamodeld --version "Model 2" --manual-codegen class
            """
    )

    @Argument(help: "The Core Data model: a .xcdatamodeld or .xcdatamodel folder, or a contents file.")
    var model: String

    @Option(name: .shortAndLong, help: "Write the model file here instead of standard output.")
    var output: String?

    @Option(help: "The version of a .xcdatamodeld to read (its bundle name, e.g. \"Model 2\"); default: the current version.")
    var version: String?

    @Option(help: "The model name (default: the bundle's name).")
    var name: String?

    @Option(help: "Codegen for entities Xcode marks Manual/None: none (you write the class), class or extension.")
    var manualCodegen: CodegenMode = .none

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    @Option(help: "How to print diagnostics: text, json or github.")
    var diagnostics: DiagnosticFormat = .text

    func run() throws {
        var options = XcodeModelImporter.Options()
        options.manualCodegen = manualCodegen
        options.modelName = name
        let outcome = XcodeModelImport.run(path: model, version: version, options: options)
        let diagnostics = strict ? outcome.diagnostics.promotingWarnings() : outcome.diagnostics
        DiagnosticPrinter(format: self.diagnostics).print(diagnostics)
        guard let text = outcome.text, !diagnostics.hasErrors else { throw ExitCode(1) }
        try CommandOutput.write(text, to: output)
    }
}
