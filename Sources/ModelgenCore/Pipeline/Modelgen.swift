import Foundation

/// One model file's bytes and the path diagnostics name it by.
public struct ModelSource: Sendable {
    public var path: String
    public var contents: Data

    /// A model file read into memory.
    public init(path: String, contents: Data) {
        self.path = path
        self.contents = contents
    }
}

/// Where diagnostics go as the pipeline finds them (the CLI prints them in the chosen format; a test
/// or a library user collects them).
public protocol DiagnosticCollector {
    /// Receives the diagnostics of one model file, sorted by position.
    func emit(_ diagnostics: [Diagnostic], of source: ModelSource)
}

/// Keeps every diagnostic it receives.
public final class CollectedDiagnostics: DiagnosticCollector {
    /// Everything received, in order.
    public private(set) var all: [Diagnostic] = []

    public init() {}

    public func emit(_ diagnostics: [Diagnostic], of source: ModelSource) { all += diagnostics }
}

/// What a generation run is asked to do beyond the models: the output layout and the options of
/// `modelgen generate` and `modelgen.yml`.
public struct GenerationConfiguration: Sendable {
    /// The directory the files are meant for: the header names each model by its path from there.
    public var outputDirectory: String
    /// Access level, single file, property style, extra imports.
    public var options = GenerationOptions()
    /// The one file's name when everything goes into one file (the build-tool plugin names it up front).
    public var singleFileName: String?
    /// A directory of `.mustache` files replacing built-in templates of the same name.
    public var templatesDirectory: String?
    /// Where starter classes of extension-mode entities go (`--human-dir`); nil for none.
    public var humanDirectory: String?
    /// Warnings count as errors.
    public var strict = false
    /// The process ends right after the run (the CLI): the pipeline keeps its YAML trees instead of
    /// freeing them node by node, which would only delay the exit.
    public var processExitsAfterward = false

    /// Generation into `outputDirectory` with the default options.
    public init(outputDirectory: String) {
        self.outputDirectory = outputDirectory
    }
}

/// The files a generation run would write, computed in memory: nothing is written by the pipeline.
public struct GenerationOutput: Sendable {
    /// The generated files, relative to the output directory.
    public var files: [GeneratedFile] = []
    /// Starter classes for the human directory (written only where missing).
    public var humanFiles: [GeneratedFile] = []
}

/// Why a generation run produced no files.
public enum GenerationFailure: Error, CustomStringConvertible {
    /// At least one model had errors; they went to the diagnostic collector.
    case invalidModels(errorCount: Int)
    /// The templates could not be loaded or rendered (the message names the template and the position).
    case templates(String)

    public var description: String {
        switch self {
        case .invalidModels(let count): return "\(count) error\(count == 1 ? "" : "s") in the models; nothing was generated"
        case .templates(let message): return message
        }
    }
}

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
            let check = ModelCheck.run(data: source.contents, path: source.path, strict: config.strict)
            diagnostics.emit(check.diagnostics, of: source)
            if let model = check.validated { validated.append(model) } else { errorCount += max(1, check.diagnostics.filter { $0.severity == .error }.count) }
            if config.processExitsAfterward { KeptForExit.keep(check) }
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
/// `GenerationConfiguration.processExitsAfterward`).
enum KeptForExit {
    private final class Box: @unchecked Sendable {
        let check: ModelCheck
        init(_ check: ModelCheck) { self.check = check }
    }

    static func keep(_ check: ModelCheck) { _ = Unmanaged.passRetained(Box(check)) }
}
