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

            --all-versions imports every released version (Model, Model 2, … up to the current one, oldest first) into a version folder: --output names it (NAME.modelversions, new or empty), and it gets v1.model.yaml, v2.model.yaml, …; nothing is written when a version has errors.

            Examples:
              modelgen import Model.xcdatamodeld --output Model.model.yaml
              modelgen import Model.xcdatamodeld --version "Model 2" --manual-codegen class
              modelgen import Model.xcdatamodeld --all-versions --output Model.modelversions
            """
    )

    @Argument(help: "The Core Data model: a .xcdatamodeld or .xcdatamodel folder, or a contents file.")
    var model: String

    @Option(name: .shortAndLong, help: "Write the model file here instead of standard output (with --all-versions: the version folder).")
    var output: String?

    @Flag(help: "Import every released version into a version folder (--output NAME.modelversions).")
    var allVersions = false

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

    func validate() throws {
        if allVersions {
            guard version == nil else { throw ValidationError("--all-versions imports every version; leave out --version") }
            guard let output, ModelVersionFolder.isVersionFolder(output) else {
                throw ValidationError("--all-versions writes a version folder: pass --output NAME.modelversions")
            }
        }
    }

    func run() throws {
        var options = XcodeModelImporter.Options()
        options.manualCodegen = manualCodegen
        options.modelName = name
        if allVersions, let output {
            let result = XcodeModelImport.runAllVersions(path: model, options: options)
            let diagnostics = strict ? result.diagnostics.promotingWarnings() : result.diagnostics
            DiagnosticPrinter(format: self.diagnostics).print(diagnostics)
            guard let files = result.files, !diagnostics.hasErrors else { throw ExitCode(1) }
            try writeVersionFolder(files, to: output)
            return
        }
        let outcome = XcodeModelImport.run(path: model, version: version, options: options)
        let diagnostics = strict ? outcome.diagnostics.promotingWarnings() : outcome.diagnostics
        DiagnosticPrinter(format: self.diagnostics).print(diagnostics)
        guard let text = outcome.text, !diagnostics.hasErrors else { throw ExitCode(1) }
        try CommandOutput.write(text, to: output)
    }

    /// Writes the versions into a new (or empty) folder: into a hidden sibling first, moved into place
    /// whole, so a failure leaves nothing half-written.
    private func writeVersionFolder(_ files: [(name: String, text: String)], to path: String) throws {
        let fileManager = FileManager.default
        let target = URL(fileURLWithPath: path)
        if let existing = try? fileManager.contentsOfDirectory(atPath: path), !existing.isEmpty {
            FileHandle.standardError.write(Data("error: '\(path)' is not empty; --all-versions writes a new version folder\n".utf8))
            throw ExitCode(2)
        }
        let staging = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).\(getpid()).tmp")
        do {
            try fileManager.createDirectory(at: staging, withIntermediateDirectories: true)
            for file in files { try file.text.write(to: staging.appendingPathComponent(file.name), atomically: true, encoding: .utf8) }
            if fileManager.fileExists(atPath: path) { try fileManager.removeItem(at: target) }
            try fileManager.moveItem(at: staging, to: target)
        } catch {
            try? fileManager.removeItem(at: staging)
            FileHandle.standardError.write(Data("error: cannot write '\(path)': \(ModelFileChecker.reason(error))\n".utf8))
            throw ExitCode(2)
        }
        print("imported \(files.count) version\(files.count == 1 ? "" : "s") into \(path)")
    }
}
