import Foundation
import Mustache

/// A file of generated code: its name (relative to the output directory) and contents.
public struct GeneratedFile: Sendable, Hashable {
    public var name: String
    public var contents: String
}

/// Errors of emission: unreadable or unparsable user templates.
public struct EmitError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}

/// Renders a validated model into Swift files with the mustache templates
/// (built-in, or the user's from `--templates`, file by file).
public struct ModelEmitter: Sendable {
    /// The names of the templates (`<name>.mustache`); a user directory may replace any of them.
    public static let templateNames = ["header", "model", "entity", "entity-file", "model-file"]

    private let library: MustacheLibrary

    /// Loads the templates once: built-in ones, replaced by those in `templatesDirectory`.
    public init(templatesDirectory: String? = nil) throws {
        var sources = BuiltinTemplates.all
        if let directory = templatesDirectory {
            for name in Self.templateNames {
                let path = (directory as NSString).appendingPathComponent(name + ".mustache")
                guard FileManager.default.fileExists(atPath: path) else { continue }
                guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                    throw EmitError(message: "cannot read template '\(path)'")
                }
                sources[name] = text
            }
        }
        var library = MustacheLibrary()
        for (name, text) in sources.sorted(by: { $0.key < $1.key }) {
            do {
                // Generated code is text: no HTML escaping.
                library.register(try MustacheTemplate(string: "{{% CONTENT_TYPE: TEXT}}\n" + text), named: name)
            } catch {
                throw EmitError(message: "template '\(name).mustache' does not parse: \(error)")
            }
        }
        self.library = library
    }

    /// The files for a model that has no errors.
    public func generate(_ model: ObjectModel, variables: [String: [TemplateVariable]], options: GenerationOptions) throws -> [GeneratedFile] {
        let view = ModelViewBuilder(model: model, variables: variables, options: options).build()
        var files = [GeneratedFile(name: view.typeName + ".swift", contents: try render("model-file", FileView(model: view, entity: nil)))]
        if !options.singleFile {
            for entity in view.entities {
                files.append(GeneratedFile(name: entity.fileName, contents: try render("entity-file", FileView(model: view, entity: entity))))
            }
        }
        return files
    }

    private func render(_ template: String, _ context: FileView) throws -> String {
        guard let text = library.render(context, withTemplate: template) else {
            throw EmitError(message: "no template '\(template)'")
        }
        // One trailing newline, no trailing spaces: stable bytes whatever the template's ends.
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            var line = line
            while line.last == " " { line.removeLast() }
            return line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
    }
}
