import Foundation
import Mustache

/// A file of generated code: its name (relative to the output directory) and contents.
public struct GeneratedFile: Sendable, Hashable {
    /// The file's name, relative to the output directory.
    public var name: String
    /// The Swift source, exactly as written to disk.
    public var contents: String
    /// What in the model the file comes from (its entity, or the model's name): where a
    /// diagnostic about the file points.
    public var origin: SourceLocation

    /// A generated file.
    public init(name: String, contents: String, origin: SourceLocation) {
        self.name = name
        self.contents = contents
        self.origin = origin
    }
}

/// Errors of emission: unreadable or unparsable user templates.
public struct EmitError: Error, CustomStringConvertible, Sendable {
    /// The text to print.
    public var message: String
    /// The positioned problems behind it (a template that does not parse, partials in a cycle, an invalid
    /// configuration file); empty for an I/O error such as a missing templates directory.
    public var diagnostics: [Diagnostic] = []
    public var description: String { message }

    /// An error without a position.
    public init(message: String) { self.message = message }

    /// Positioned problems, printed as diagnostics in the text format.
    public init(_ diagnostics: [Diagnostic]) {
        let renderer = DiagnosticRenderer(format: .text)
        self.message = diagnostics.map { renderer.render($0) }.joined().trimmingCharacters(in: .newlines)
        self.diagnostics = diagnostics
    }
}

/// Renders a validated model into Swift files with the mustache templates
/// (built-in, or the user's from `--templates`, file by file).
public struct ModelEmitter: Sendable {
    /// The names of the templates (`<name>.mustache`); a user directory may replace any of them.
    public static let templateNames = ["header", "model", "entity", "entity-file", "model-file", "human-class"]

    private let library: MustacheLibrary

    /// How deep sections (`{{#…}}`, `{{^…}}`, blocks and inherited partials) may nest in a user's template:
    /// mustache renders each level by recursion, partials adding theirs (the built-in templates nest 5 deep).
    public static let maximumSectionDepth = 32

    /// Loads the templates once: built-in ones, replaced by those in `templatesDirectory`.
    public init(templatesDirectory: String? = nil) throws {
        var sources = BuiltinTemplates.all
        var paths: [String: String] = [:]
        if let directory = templatesDirectory {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw EmitError(message: "error: templates directory '\(directory)' does not exist")
            }
            for name in Self.templateNames {
                let path = (directory as NSString).appendingPathComponent(name + ".mustache")
                guard FileManager.default.fileExists(atPath: path) else { continue }
                // By its size before it is read, as models and configs are (10 MB, or MODELGEN_MAX_FILE_BYTES).
                if let problem = SourceText.sizeProblem(ofFileAt: path) { throw EmitError([problem]) }
                guard let data = FileManager.default.contents(atPath: path), var text = String(data: data, encoding: .utf8) else {
                    throw EmitError(message: "cannot read template '\(path)'")
                }
                // Without its final line breaks, as the built-in templates are embedded: a built-in
                // template copied into the directory renders the same (in one file, the line break
                // after an entity's last line would otherwise add an empty line between entities).
                while text.last == "\n" { text.removeLast() }
                sources[name] = text
                paths[name] = path
            }
        }
        try self.init(sources: sources, paths: paths, replaced: Set(paths.keys))
    }

    /// The built-in templates with some replaced by text (`templates`: name → template), as a library
    /// user or a test passes them without files.
    public init(templates: [String: String]) throws {
        var sources = BuiltinTemplates.all
        var replaced: Set<String> = []
        for (name, text) in templates where Self.templateNames.contains(name) { sources[name] = text; replaced.insert(name) }
        try self.init(sources: sources, paths: [:], replaced: replaced)
    }

    /// `replaced`: the names of the templates that are not the built-in ones, judged by the engine's parse.
    private init(sources: [String: String], paths: [String: String], replaced: Set<String>) throws {
        func file(_ name: String) -> String { paths[name] ?? name + ".mustache" }
        var library = MustacheLibrary()
        var partials: [String: [TemplatePartials.Reference]] = [:]
        for (name, text) in sources.sorted(by: { $0.key < $1.key }) {
            let template: MustacheTemplate
            do {
                // Generated code is text: no HTML escaping.
                let source = "{{% CONTENT_TYPE: TEXT}}\n" + text
                if replaced.contains(name) {
                    let tags = TemplatePartials.tags(in: text)
                    // Too deep as the scan reads the text: refused before the parse (which also takes time
                    // growing with the square of the depth).
                    if let tag = TemplatePartials.sectionOpening(atDepth: Self.maximumSectionDepth + 1, in: tags) {
                        throw Self.tooDeep(at: SourceLocation(file: file(name), line: tag.line, column: tag.column))
                    }
                    // Parsed, read and (if too deep after all) dropped on a thread with a large stack: each of
                    // these recurses as deep as the sections nest.
                    let read = try LargeStack.run { () throws -> (template: MustacheTemplate?, references: [TemplatePartials.Reference]) in
                        let template = try MustacheTemplate(string: source)
                        let parsed = TemplatePartials.parsed(template)
                        guard parsed.depth <= Self.maximumSectionDepth else { return (nil, []) }
                        return (template, TemplatePartials.references(in: parsed, placedBy: tags))
                    }
                    guard let parsed = read.template else { throw Self.tooDeep(at: SourceLocation(file: file(name), line: 1, column: 1)) }
                    template = parsed
                    partials[name] = read.references
                } else {
                    template = try MustacheTemplate(string: source)
                    partials[name] = TemplatePartials.references(in: text)
                }
            } catch let error as MustacheTemplate.ParserError {
                // One line was prepended (the content-type pragma): report the template's own line.
                let line = max(1, error.context.lineNumber - 1)
                throw EmitError([Diagnostic(.error, .invalidTemplate, "template does not parse: \(Self.explain(error.error))",
                                            at: SourceLocation(file: file(name), line: line, column: error.context.columnNumber))])
            } catch let error as EmitError {
                throw error
            } catch {
                throw EmitError([Diagnostic(.error, .invalidTemplate, "template does not parse: \(error)",
                                            at: SourceLocation(file: file(name), line: 1, column: 1))])
            }
            library.register(template, named: name)
        }
        if let dynamic = TemplatePartials.dynamicPartial(in: partials) {
            throw EmitError([Diagnostic(.error, .invalidTemplate, "a partial named by the context ({{>*name}}) is not supported: its name comes from the model, so it could include the template that includes it and never end; name the partial ({{> entity}})",
                                        at: SourceLocation(file: file(dynamic.template), line: dynamic.line, column: dynamic.column))])
        }
        if let cycle = TemplatePartials.cycle(in: partials) {
            throw EmitError([Diagnostic(.error, .invalidTemplate, "partials include each other in a cycle (\(cycle.path.joined(separator: " → "))), which would never end; a template cannot include itself, directly or through other templates",
                                        at: SourceLocation(file: file(cycle.template), line: cycle.line, column: cycle.column))])
        }
        self.library = library
    }

    /// The error of a template whose sections nest deeper than `maximumSectionDepth`, at the tag that does.
    private static func tooDeep(at location: SourceLocation) -> EmitError {
        EmitError([Diagnostic(.error, .invalidTemplate, "sections nest more than \(maximumSectionDepth) deep here; modelgen renders at most \(maximumSectionDepth) (mustache renders a section inside a section by recursion)",
                              at: location)])
    }

    /// swift-mustache's parser error in words.
    private static func explain(_ error: any Error) -> String {
        guard let error = error as? MustacheTemplate.Error else { return "\(error)" }
        switch error {
        case .sectionCloseNameIncorrect: return "this {{/…}} closes a section of another name than the open one"
        case .unfinishedName: return "a tag is not closed with }} (or its name is malformed)"
        case .expectedSectionEnd: return "a section opened with {{#…}} or {{^…}} is never closed with {{/…}}"
        case .invalidSetDelimiter: return "a set-delimiter tag {{=… …=}} is malformed"
        case .transformAppliedToInheritanceSection: return "a transform cannot apply to an inheritance section"
        case .illegalTokenInsideInheritSection: return "only blocks {{$…}} may appear inside {{<…}}"
        case .textInsideInheritSection: return "only blocks {{$…}} may appear inside {{<…}}, not text"
        case .invalidConfigVariableSyntax, .unrecognisedConfigVariable: return "a {{% …}} pragma is malformed or unknown"
        @unknown default: return "\(error)"
        }
    }

    /// The files of a validated model.
    public func generate(_ validated: ValidatedModel, options: GenerationOptions) throws -> [GeneratedFile] {
        let model = validated.model
        let view = ModelViewBuilder(model: model, variables: validated.templateVariables, aggregateRows: validated.aggregateRows, options: options).build()
        // The model file (the largest) and the entity files render side by side.
        let entities = options.singleFile ? [] : view.entities
        let contents = try ParallelMap.map(1 + entities.count) { index in
            index == 0 ? try render("model-file", FileView(model: view, entity: nil))
                : try render("entity-file", FileView(model: view, entity: entities[index - 1]))
        }
        return [GeneratedFile(name: view.typeName + ".swift", contents: contents[0], origin: model.name.location)]
            + zip(entities, contents.dropFirst()).map { GeneratedFile(name: $0.fileName, contents: $1, origin: $0.origin) }
    }

    /// Starter classes for extension-mode entities (the user's side), for `--human-dir`.
    public func humanFiles(_ validated: ValidatedModel, options: GenerationOptions) throws -> [GeneratedFile] {
        let view = ModelViewBuilder(model: validated.model, variables: validated.templateVariables, aggregateRows: validated.aggregateRows, options: options).build()
        return try view.entities.filter(\.isExtensionMode).map { entity in
            GeneratedFile(name: "\(entity.className).swift", contents: try render("human-class", FileView(model: view, entity: entity)),
                          origin: entity.origin)
        }
    }

    private func render(_ template: String, _ context: FileView) throws -> String {
        guard let text = library.render(ViewObject(context), withTemplate: template) else {
            throw EmitError(message: "no template '\(template)'")
        }
        return Self.normalizeWhitespace(text)
    }

    /// No trailing spaces on any line and exactly one newline at the end: stable bytes whatever the templates' ends.
    /// Written straight into the new string's storage (no intermediate byte array to copy), a line at a
    /// time (`memchr` finds its end, its text is copied whole, not byte by byte).
    static func normalizeWhitespace(_ text: String) -> String {
        var text = text
        return text.withUTF8 { input in
            String(unsafeUninitializedCapacity: input.count + 1) { output in
                var count = 0
                if let base = input.baseAddress {
                    var lineStart = 0
                    while lineStart < input.count {
                        var lineEnd = input.count
                        if let newline = memchr(base + lineStart, Int32(UInt8(ascii: "\n")), input.count - lineStart) {
                            lineEnd = UnsafeRawPointer(newline) - UnsafeRawPointer(base)
                        }
                        var textEnd = lineEnd
                        while textEnd > lineStart && base[textEnd - 1] == UInt8(ascii: " ") { textEnd -= 1 }
                        if textEnd > lineStart {
                            (output.baseAddress! + count).initialize(from: base + lineStart, count: textEnd - lineStart)
                            count += textEnd - lineStart
                        }
                        if lineEnd < input.count {
                            output[count] = UInt8(ascii: "\n")
                            count += 1
                        }
                        lineStart = lineEnd + 1
                    }
                }
                while count > 0 && output[count - 1] == UInt8(ascii: "\n") { count -= 1 }
                output[count] = UInt8(ascii: "\n")
                return count + 1
            }
        }
    }
}
