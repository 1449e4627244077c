import Foundation

/// `modelgen import` in one call: locate the model, read its XML, write the model file's text and
/// validate it, every diagnostic pointing into the XML.
public enum XcodeModelImport {
    /// The model file's text (nil when an error was found) and the diagnostics.
    public struct Outcome: Sendable {
        /// The model file (YAML) the import wrote.
        public var text: String?
        /// Everything the import reports, located in the XML.
        public var diagnostics: [Diagnostic]
        /// True when an error was found.
        public var hasErrors: Bool { diagnostics.hasErrors }
    }

    /// Imports the Core Data model at `path` (a `.xcdatamodeld`, `.xcdatamodel` or `contents` file).
    public static func run(path: String, version: String? = nil, options: XcodeModelImporter.Options = .init()) -> Outcome {
        let located: XcodeModelLocator.Located
        switch XcodeModelLocator.locate(path, version: version) {
        case .failure(let diagnostic): return Outcome(text: nil, diagnostics: [diagnostic])
        case .success(let value): located = value
        }
        guard let data = FileManager.default.contents(atPath: located.contentsPath) else {
            return Outcome(text: nil, diagnostics: [Diagnostic(.error, .notAnXcodeModel, "cannot read the file",
                                                               at: SourceLocation(file: located.contentsPath, line: 1, column: 1))])
        }
        var source = URL(fileURLWithPath: path).lastPathComponent
        if let version = located.versionName { source += " (version \(version))" }
        return convert(data: data, contentsPath: located.contentsPath, modelName: located.modelName, source: source, options: options)
    }

    /// Every released version of a `.xcdatamodeld` (oldest first, the current one last; see
    /// `XcodeModelLocator.releasedVersions`), each as a model file for a version folder
    /// (`v1.model.yaml`, …), all with the bundle's model name. Texts only when no version has errors.
    public static func runAllVersions(path: String, options: XcodeModelImporter.Options = .init()) -> (files: [(name: String, text: String)]?, diagnostics: [Diagnostic]) {
        switch XcodeModelLocator.releasedVersions(path) {
        case .failure(let diagnostic):
            return (nil, [diagnostic])
        case .success(let (versions, warnings)):
            var diagnostics = warnings
            var files: [(String, String)] = []
            for (index, version) in versions.enumerated() {
                let outcome = run(path: path, version: version, options: options)
                diagnostics += outcome.diagnostics
                if let text = outcome.text { files.append(("v\(index + 1).model.yaml", text)) }
            }
            return (diagnostics.hasErrors || files.count != versions.count ? nil : files, diagnostics)
        }
    }

    /// Imports `contents` XML bytes; `source` names the model in the file's header comment.
    public static func convert(data: Data, contentsPath: String, modelName: String, source: String,
                               options: XcodeModelImporter.Options = .init()) -> Outcome {
        let result = XcodeModelImporter.importModel(data: data, path: contentsPath, defaultName: modelName, options: options)
        guard var document = result.document.map(ModelDocumentCanonicalizer.canonical) else { return Outcome(text: nil, diagnostics: result.diagnostics) }
        document.headerComments = [" Imported from \(source) by modelgen import."]
        let (text, origins) = YAMLDocumentWriter.write(document)
        let check = ModelCheck.run(text: text, path: "imported.model.yaml")
        let originLines = origins.keys.sorted()
        func map(_ location: SourceLocation) -> SourceLocation {
            guard location.file == "imported.model.yaml",
                  let line = originLines.last(where: { $0 <= location.line }), let origin = origins[line] else {
                return SourceLocation(file: contentsPath, line: 1, column: 1)
            }
            return origin
        }
        let validation = check.diagnostics.map { diagnostic in
            var mapped = diagnostic
            mapped.location = map(diagnostic.location)
            mapped.notes = diagnostic.notes.map { note in
                var note = note
                note.location = note.location.map(map)
                return note
            }
            return mapped
        }
        var seen: Set<Diagnostic> = []
        let all = (result.diagnostics + validation).sorted { $0.location < $1.location }.filter { seen.insert($0).inserted }
        return Outcome(text: all.hasErrors ? nil : text, diagnostics: all)
    }
}
