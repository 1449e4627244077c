import Foundation
import Yams

/// `modelgen-config.yaml` beside a model: options for builds that cannot pass flags (the
/// build-tool plugin). Keys: `access` (internal | package | public), `imports` (a list of modules),
/// `propertyStyle` (managed | accessors).
/// Unknown keys and bad values are errors at their position.
public struct GeneratorConfig: Sendable {
    /// The access level of generated declarations.
    public var access: AccessLevel?
    /// Modules the generated files import besides ModelgenRuntime.
    public var imports: [String] = []
    /// How class-mode properties are declared.
    public var propertyStyle: PropertyStyle?
    /// A version folder's oldest version a store may still be at (nil: every version).
    public var oldestVersion: Int?

    /// No options.
    public init() {}

    /// The keys a config file allows.
    static let keys = KeySet(["access", "imports", "propertyStyle", "oldestVersion"])

    /// Reads a config file; throws its diagnostics, rendered, when it is wrong.
    public static func load(path: String) throws -> GeneratorConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EmitError(message: "error: cannot read '\(path)'")
        }
        return try parse(data: data, path: path)
    }

    /// Parses config text.
    public static func parse(data: Data, path: String) throws -> GeneratorConfig {
        let source: SourceText, root: Node
        switch YAMLLoader.loadDocument(data, path: path) {
        case .success(let document): (source, root) = document
        case .failure(let diagnostics): throw Self.error(diagnostics.all)
        }
        let reader = NodeReader(file: path, byteCount: source.byteCount)
        var config = GeneratorConfig()
        for entry in reader.entries(of: root, "modelgen-config.yaml", allowedKeys: keys) ?? [] {
            switch entry.key {
            case "access": config.access = reader.choice(entry.value, "access level", as: AccessLevel.self)?.value
            case "propertyStyle": config.propertyStyle = reader.choice(entry.value, "property style", as: PropertyStyle.self)?.value
            case "oldestVersion": config.oldestVersion = reader.count(entry.value, "'oldestVersion'")?.value
            default: config.imports = reader.strings(entry.value, "'imports'")?.map(\.value) ?? []
            }
        }
        if reader.diagnostics.hasErrors { throw Self.error(reader.diagnostics.all) }
        return config
    }

    private static func error(_ diagnostics: [Diagnostic]) -> EmitError { EmitError(diagnostics) }
}
