import ArgumentParser
import Foundation
import ModelgenCore

/// `modelgen export`: a model as a Core Data model bundle.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a model as a Core Data model bundle (.xcdatamodel) that Xcode and momc read.",
        discussion: """
            --xcdatamodel names the bundle to write (Model.xcdatamodel), or a folder to write <Model>.xcdatamodel into. Fields Core Data has no place for travel in userInfo as modelgen.<key> and come back with modelgen import; model options and fetch-request sorts are reported as warnings.

            Example:
              modelgen export Blog.model.yaml --xcdatamodel Blog.xcdatamodeld/Blog.xcdatamodel
            """
    )

    @Argument(help: "The model file.")
    var model: String

    @Option(help: "The .xcdatamodel bundle to write, or a folder to write <Model>.xcdatamodel into.")
    var xcdatamodel: String

    @Option(help: "How to print diagnostics: text, json or github.")
    var diagnostics: DiagnosticFormat = .text

    func run() throws {
        let checks = try ModelInputOptions.checkAll([model], format: diagnostics, strict: false)
        guard let parsed = checks.first?.model else { throw ExitCode(1) }
        let result = XcodeModelExporter.export(parsed)
        DiagnosticPrinter(format: diagnostics).print(result.diagnostics)
        var bundle = URL(fileURLWithPath: xcdatamodel)
        if bundle.pathExtension != "xcdatamodel" { bundle.appendPathComponent("\(parsed.name.value).xcdatamodel") }
        do {
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        } catch {
            FileHandle.standardError.write(Data("error: cannot create '\(bundle.path)': \(ModelFileChecker.reason(error))\n".utf8))
            throw ExitCode(2)
        }
        let contents = bundle.appendingPathComponent("contents")
        if FileManager.default.contents(atPath: contents.path) != Data(result.xml.utf8) {
            try CommandOutput.write(result.xml, to: contents.path)
        }
        FileHandle.standardError.write(Data("wrote \(contents.path)\n".utf8))
    }
}
