import Foundation
import Yams

/// `modelgen.yml`: the models of a project and where their code goes, so `modelgen` with no
/// arguments regenerates everything and `modelgen --check` checks it in CI.
///
/// ```yaml
/// defaults:                     # optional: options for every entry
///   access: public
/// models:
///   - path: Sources/Blog/Blog.model.yaml
///     output: Sources/Blog/Generated
///     humanDir: Sources/Blog    # optional
///     singleFile: false         # optional
///     templates: Templates      # optional
///     propertyStyle: managed    # optional: managed (default) | accessors
/// ```
/// Paths are relative to the file's folder. Unknown keys are errors at their position.
public struct ProjectConfig: Sendable {
    /// One model and its output.
    public struct Entry: Sendable {
        /// The model file, relative to the configuration file's folder.
        public var path: String
        /// The output directory, relative to the configuration file's folder.
        public var output: String
        /// The access level of generated declarations (nil: the model's or the defaults').
        public var access: AccessLevel?
        /// One file per model (nil: the defaults').
        public var singleFile: Bool?
        /// Where starter classes of `codegen: extension` entities go (nil: none).
        public var humanDir: String?
        /// A folder of templates replacing built-in ones (nil: the built-in templates).
        public var templates: String?
        /// How class-mode properties are declared (nil: the defaults', else `@Managed` wrappers).
        public var propertyStyle: PropertyStyle?
        /// A version folder's oldest version a store may still be at (nil: every version).
        public var oldestVersion: Int?
        /// Where the entry is written (for diagnostics).
        public var location: SourceLocation
    }

    /// Every model to generate, in file order.
    public var entries: [Entry] = []

    static let optionKeys = ["access", "singleFile", "humanDir", "templates", "propertyStyle", "oldestVersion"]
    static let topKeys = KeySet(["defaults", "models"])
    static let entryKeys = KeySet(["path", "output"] + optionKeys)
    static let defaultKeys = KeySet(optionKeys)

    /// Parses a modelgen.yml; paths come back relative to `baseDirectory` (the file's folder).
    public static func parse(data: Data, path: String) -> (config: ProjectConfig?, diagnostics: [Diagnostic]) {
        let source: SourceText, root: Node
        switch YAMLLoader.loadDocument(data, path: path) {
        case .success(let document): (source, root) = document
        case .failure(let diagnostics): return (nil, diagnostics.all)
        }
        let reader = NodeReader(file: path, byteCount: source.byteCount)
        let base = (path as NSString).deletingLastPathComponent
        func resolve(_ relative: String) -> String {
            relative.hasPrefix("/") || base.isEmpty ? relative : (base as NSString).appendingPathComponent(relative)
        }
        var defaults = Entry(path: "", output: "", location: reader.location(root))
        var config = ProjectConfig()
        func readOptions(_ entry: NodeReader.Entry, into target: inout Entry, _ what: String) {
            switch entry.key {
            case "access": target.access = reader.choice(entry.value, "access level", as: AccessLevel.self)?.value
            case "singleFile": target.singleFile = reader.bool(entry.value, "'singleFile' of \(what)")?.value
            case "humanDir": target.humanDir = reader.string(entry.value, "'humanDir' of \(what)").map { resolve($0.value) }
            case "propertyStyle": target.propertyStyle = reader.choice(entry.value, "property style", as: PropertyStyle.self)?.value
            case "templates": target.templates = reader.string(entry.value, "'templates' of \(what)").map { resolve($0.value) }
            case "oldestVersion": target.oldestVersion = reader.count(entry.value, "'oldestVersion' of \(what)")?.value
            default: break
            }
        }
        let top = reader.entries(of: root, "modelgen.yml", allowedKeys: topKeys) ?? []
        if let defaultsEntry = top.first(where: { $0.key == "defaults" }) {
            for entry in reader.entries(of: defaultsEntry.value, "'defaults'", allowedKeys: defaultKeys) ?? [] {
                readOptions(entry, into: &defaults, "'defaults'")
            }
        }
        if let models = top.first(where: { $0.key == "models" }) {
            for (index, item) in (reader.items(of: models.value, "'models'") ?? []).enumerated() {
                let what = "model entry \(index + 1)"
                guard let fields = reader.entries(of: item, what, allowedKeys: entryKeys) else { continue }
                var entry = defaults
                entry.location = reader.location(item)
                var hasPath = false, hasOutput = false
                for field in fields {
                    switch field.key {
                    case "path":
                        if let value = reader.string(field.value, "'path' of \(what)") {
                            entry.path = resolve(value.value)
                            hasPath = true
                            if !FileManager.default.fileExists(atPath: entry.path) {
                                reader.error(.missingModelFile, "model file '\(value.value)' does not exist", at: value.location)
                            }
                        }
                    case "output":
                        if let value = reader.string(field.value, "'output' of \(what)") {
                            entry.output = resolve(value.value)
                            hasOutput = true
                        }
                    default: readOptions(field, into: &entry, what)
                    }
                }
                if !hasPath { reader.error(.missingKey, "missing required key 'path' in \(what)", at: entry.location) }
                if !hasOutput { reader.error(.missingKey, "missing required key 'output' in \(what)", at: entry.location) }
                if hasPath && hasOutput { config.entries.append(entry) }
            }
        } else {
            reader.error(.missingKey, "missing required key 'models' (a list of {path, output} entries)", at: reader.location(root))
        }
        let diagnostics = reader.diagnostics.all.sortedByLocation()
        return (diagnostics.hasErrors ? nil : config, diagnostics)
    }
}
