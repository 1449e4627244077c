import Foundation

/// modelgen's pipeline in one call: parse → validate (`ValidatedModel`) → plan and render
/// (`ModelEmitter`) → the files, in memory. `modelgen generate`, `modelgen` with `modelgen.yml`, the
/// build-tool plugin (through the CLI) and the tests all generate through `generate(input:config:diagnostics:)`;
/// writing the files is the caller's.
public enum Modelgen {
    /// Validates every model (all diagnostics go to `diagnostics`, file by file), then generates the
    /// files of all of them; throws `GenerationFailure.invalidModels` when any model has errors, before
    /// rendering anything.
    public static func generate(input: [ModelSource], config: GenerationConfiguration,
                                diagnostics: some DiagnosticCollector) throws(GenerationFailure) -> GenerationOutput {
        // The templates load on another thread while the models are parsed and validated.
        let templates = loadTemplates(config)
        var validated: [ValidatedModel] = []
        var errorCount = 0
        for source in input {
            var check = ModelCheck.run(data: source.contents, path: source.path, strict: config.strict)
            diagnostics.emit(check.diagnostics, of: source)
            if let model = check.validated {
                validated.append(model)
                // A version folder's current version: the path from its earlier versions.
                if let earlier = config.earlierVersions[source.path] {
                    let path = ModelVersionFolder.pathDiagnostics(earlier.models.map(\.model) + [model.model], firstNumber: earlier.firstNumber)
                    diagnostics.emit(path, of: source)
                    errorCount += path.filter { $0.severity == .error || config.strict }.count
                }
            } else {
                errorCount += max(1, check.diagnostics.filter { $0.severity == .error }.count)
            }
            config.didCheck?(&check)
        }
        if errorCount > 0 { throw .invalidModels(errorCount: errorCount) }
        return try render(validated, config: config, templates: templates)
    }

    /// Renders validated models with the configuration's templates and options.
    public static func render(_ models: [ValidatedModel], config: GenerationConfiguration) throws(GenerationFailure) -> GenerationOutput {
        try render(models, config: config, templates: loadTemplates(config))
    }

    private static func loadTemplates(_ config: GenerationConfiguration) -> BackgroundTask<Result<ModelEmitter, GenerationFailure>> {
        BackgroundTask { [templatesDirectory = config.templatesDirectory] in
            Result { () throws(GenerationFailure) in
                do {
                    return try ModelEmitter(templatesDirectory: templatesDirectory)
                } catch {
                    throw .templates("\(error)")
                }
            }
        }
    }

    private static func render(_ models: [ValidatedModel], config: GenerationConfiguration,
                               templates: BackgroundTask<Result<ModelEmitter, GenerationFailure>>) throws(GenerationFailure) -> GenerationOutput {
        let emitter = try templates.value.get()
        do {
            var output = GenerationOutput()
            for validated in models {
                var options = config.options
                if config.singleFileName != nil { options.singleFile = true }
                options.headerSourcePath = RelativePath.from(directory: config.outputDirectory, to: validated.model.sourcePath)
                var files = try emitter.generate(validated, options: options)
                if let versions = config.earlierVersions[validated.model.sourcePath], !versions.models.isEmpty {
                    files[0].contents += EarlierVersionsWriter(current: validated.model, earlier: versions, options: options).render()
                }
                if let name = config.singleFileName, files.count == 1 { files[0].name = name }
                output.files += files
                if let human = config.humanDirectory {
                    options.headerSourcePath = RelativePath.from(directory: human, to: validated.model.sourcePath)
                    output.humanFiles += try emitter.humanFiles(validated, options: options)
                }
            }
            return output
        } catch {
            throw .templates("error: \(error)")
        }
    }
}
