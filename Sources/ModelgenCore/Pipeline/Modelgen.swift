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
        var validated: [ValidatedModel] = []
        var errorCount = 0
        for source in input {
            var check = ModelCheck.run(data: source.contents, path: source.path, strict: config.strict)
            diagnostics.emit(check.diagnostics, of: source)
            if let model = check.validated { validated.append(model) } else { errorCount += max(1, check.diagnostics.filter { $0.severity == .error }.count) }
            if config.processExitsAfterward {
                // The model is kept, but the YAML tree is freed here: rendering reuses its memory (peak of
                // generating 10,000 entities 560 -> 466 MB, no change in time).
                check.syntaxTree = nil
                KeptForExit.keep(check)
            }
        }
        if errorCount > 0 { throw .invalidModels(errorCount: errorCount) }
        return try render(validated, config: config)
    }

    /// Renders validated models with the configuration's templates and options.
    public static func render(_ models: [ValidatedModel], config: GenerationConfiguration) throws(GenerationFailure) -> GenerationOutput {
        let emitter: ModelEmitter
        do {
            emitter = try ModelEmitter(templatesDirectory: config.templatesDirectory)
        } catch {
            throw .templates("\(error)")
        }
        do {
            var output = GenerationOutput()
            for validated in models {
                var options = config.options
                if config.singleFileName != nil { options.singleFile = true }
                options.headerSourcePath = RelativePath.from(directory: config.outputDirectory, to: validated.model.sourcePath)
                var files = try emitter.generate(validated, options: options)
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

/// Check results deliberately never released, in a process about to exit (see
/// `GenerationConfiguration.processExitsAfterward`): the pipeline's and `modelgen validate`'s.
package enum KeptForExit {
    private final class Box: @unchecked Sendable {
        let check: ModelCheck
        init(_ check: ModelCheck) { self.check = check }
    }

    /// Keeps `check` (and the trees it holds) alive until the process exits.
    package static func keep(_ check: ModelCheck) { _ = Unmanaged.passRetained(Box(check)) }
}
