import ArgumentParser
import Foundation
import ModelgenCore

/// `modelgen format`: rewrite model files in the canonical layout, comments kept.
struct Format: ParsableCommand {
    static let configuration = CommandConfiguration(
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

/// `modelgen export`: a model as a Core Data model bundle.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
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
