import ArgumentParser
import Foundation
import ModelgenCore

extension AccessLevel: ExpressibleByArgument {}
extension PropertyStyle: ExpressibleByArgument {}

/// `modelgen generate`: validate models and write their Swift code.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate Swift code for model files.",
        discussion: """
            Writes <Model>Model.swift (the model description and typed fetch request functions) and one file per entity with generated code: <Class>.swift for codegen: class, <Class>+Generated.swift for codegen: extension. Files are written only when their content changed. A model with errors writes nothing and exits with status 1.

            Examples:
              modelgen generate Blog.model.yaml --output Sources/Blog/Generated
              modelgen generate Blog.model.yaml --output Generated --check
            """
    )

    @OptionGroup var input: ModelInputOptions

    @Option(help: "The directory to write generated files into.")
    var output: String

    @Option(help: "A directory for the classes of codegen: extension entities: a starter file is written once if missing, never overwritten.")
    var humanDir: String?

    @Flag(help: "Write everything into one file, <Model>Model.swift.")
    var singleFile = false

    @Option(help: "Write everything into one file with this name (implies --single-file); the build-tool plugin names its output up front.")
    var singleFileName: String?

    @Option(help: "A modelgen-config.yaml with options for this run (access, imports).")
    var config: String?

    @Option(help: "Access level of generated declarations: internal, package or public (default: the model's options.access).")
    var access: AccessLevel?

    @Option(help: "How class-mode properties are declared: managed (@Managed wrappers, the default) or accessors (computed accessors, compiles faster).")
    var propertyStyle: PropertyStyle?

    @Option(help: "A directory of .mustache templates replacing built-in ones of the same name.")
    var templates: String?

    @Flag(help: "Compare with the files on disk instead of writing: exit 1 with a diff when anything is stale, missing or extra.")
    var check = false

    @Flag(help: "Print what would be written, write nothing.")
    var dryRun = false

    @Flag(help: "Do not skip the run when its inputs and the output directory are those of the last run (see MODELGEN_CACHE_DIR).")
    var noCache = false

    func run() throws {
        var job = GenerationJob(files: input.files, output: output, format: input.diagnostics, strict: input.strict)
        job.singleFile = singleFile
        job.singleFileName = singleFileName
        job.access = access
        job.propertyStyle = propertyStyle
        job.templates = templates
        job.config = config
        job.humanDir = humanDir
        job.check = check
        job.dryRun = dryRun
        job.useCache = !noCache
        job.releasedVersionWarnings = input.releasedVersionWarnings
        job.oldestVersion = input.oldestVersion
        try job.run()
    }
}

/// What one generation would write into its output directory (and, for `--human-dir`, the starter classes).
struct GenerationPlan {
    var output: String
    var files: [GeneratedFile] = []
    var humanFiles: [GeneratedFile] = []
    /// Diagnostics printed while planning (warnings of valid models).
    var printedDiagnostics = 0
}

/// Prints the collisions among plans (two models generating the same file) and refuses to go on.
struct OutputCollisionReport {
    var format: DiagnosticFormat

    /// Exit 1 after printing every collision when any path is claimed twice; nothing is written then.
    func refuse(_ plans: [GenerationPlan]) throws {
        let colliding = collidingPlans(plans)
        if !colliding.isEmpty { throw ExitCode(1) }
    }

    /// Prints every collision; the indices of the plans involved in one.
    func collidingPlans(_ plans: [GenerationPlan]) -> Set<Int> {
        let collisions = OutputCollisions.find(plans.map { ($0.output, $0.files) })
        DiagnosticPrinter(format: format).print(collisions.map(\.diagnostic))
        return Set(collisions.flatMap(\.outputs))
    }
}

/// One generation: model files into an output directory, with its options.
/// `modelgen generate` runs one; `modelgen` with no arguments runs one per modelgen.yml entry.
struct GenerationJob {
    var files: [String]
    var output: String
    var format: DiagnosticFormat
    var strict: Bool
    var singleFile = false
    var singleFileName: String?
    var access: AccessLevel?
    var propertyStyle: PropertyStyle?
    var templates: String?
    var config: String?
    var humanDir: String?
    var check = false
    var dryRun = false
    /// Skip the run when nothing changed since the last one (`RegenerationCache`).
    var useCache = false
    /// Print the warnings of a version folder's released versions too.
    var releasedVersionWarnings = false
    /// A version folder's oldest version a store may still be at (nil: every version).
    var oldestVersion: Int?

    init(files: [String], output: String, format: DiagnosticFormat, strict: Bool) {
        self.files = files
        self.output = output
        self.format = format
        self.strict = strict
    }

    /// Validates, generates and writes (or checks, or prints): `plan()`, then `apply(_:)`.
    func run() throws {
        let cache = useCache ? RegenerationCache(job: self) : nil
        if let cache, cache.isUpToDate() { return }
        let plan = try plan()
        try OutputCollisionReport(format: format).refuse([plan])
        try apply(plan)
        // Only a silent run is remembered: one with warnings prints them every time.
        if plan.printedDiagnostics == 0 { cache?.record(generated: plan.files) }
    }

    /// Everything the job would write, computed before anything touches the disk (by
    /// `Modelgen.generate`): model errors are printed and end the job (exit 1) here.
    func plan() throws -> GenerationPlan {
        var settings = GeneratorConfig()
        if let config {
            do {
                settings = try GeneratorConfig.load(path: config)
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                throw ExitCode(1)
            }
        }
        var reader = ModelFileChecker(format: format, strict: strict, releasedVersionWarnings: releasedVersionWarnings,
                                      oldestVersion: oldestVersion ?? settings.oldestVersion)
        // A version folder generates its current version; its earlier versions are checked here, the
        // current one and the path from them by the pipeline.
        var paths: [String] = []
        var earlier: [String: EarlierVersions] = [:]
        for file in files {
            guard ModelVersionFolder.isVersionFolder(file) else { paths.append(file); continue }
            if let (current, versions) = reader.checkEarlierVersions(path: file) {
                paths.append(current)
                earlier[current] = versions
            }
        }
        if reader.exitStatus != 0 { throw ExitCode(reader.exitStatus) }
        let sources = paths.compactMap { reader.read(path: $0) }
        var configuration = GenerationConfiguration(outputDirectory: output)
        configuration.earlierVersions = earlier
        configuration.singleFileName = singleFileName
        configuration.templatesDirectory = templates
        configuration.humanDirectory = humanDir
        configuration.strict = strict
        configuration.didCheck = ProcessExit.keepChecks
        configuration.options.singleFile = singleFile
        configuration.options.access = access
        configuration.options.propertyStyle = propertyStyle ?? .managed
        if config != nil {
            configuration.options.access = access ?? settings.access
            configuration.options.extraImports = settings.imports
            configuration.options.propertyStyle = propertyStyle ?? settings.propertyStyle ?? .managed
        }
        let output: GenerationOutput
        let collector = PrintingCollector(checker: reader)
        do {
            output = try ModelgenCore.Modelgen.generate(input: sources, config: configuration, diagnostics: collector)
        } catch .invalidModels {
            throw ExitCode(max(1, reader.exitStatus))
        } catch .templates(let message) {
            FileHandle.standardError.write(Data("\(message)\n".utf8))
            throw ExitCode(2)
        }
        if reader.exitStatus != 0 { throw ExitCode(reader.exitStatus) }
        return GenerationPlan(output: self.output, files: output.files, humanFiles: output.humanFiles,
                              printedDiagnostics: collector.printed.value)
    }

    /// Writes the plan's files (only those that changed), or checks them (`--check`), or prints them (`--dry-run`).
    func apply(_ plan: GenerationPlan) throws {
        let files = plan.files, humanFiles = plan.humanFiles
        let writer = OutputWriter(directory: URL(fileURLWithPath: output))
        if dryRun {
            for file in files {
                print("// \((output as NSString).appendingPathComponent(file.name))")
                print(file.contents, terminator: "")
            }
            return
        }
        if check {
            let diffs = writer.check(files)
            for diff in diffs { print(diff, terminator: "") }
            if !diffs.isEmpty {
                FileHandle.standardError.write(Data("error: \(diffs.count) generated file\(diffs.count == 1 ? " is" : "s are") out of date in '\(output)'; run modelgen generate\n".utf8))
                throw ExitCode(1)
            }
            return
        }
        do {
            _ = try writer.write(files)
            if let humanDir {
                let directory = URL(fileURLWithPath: humanDir)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                for file in humanFiles where !FileManager.default.fileExists(atPath: directory.appendingPathComponent(file.name).path) {
                    // Never overwrite: the file is the user's once written.
                    guard FileManager.default.createFile(atPath: directory.appendingPathComponent(file.name).path, contents: Data(file.contents.utf8)) else {
                        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: directory.appendingPathComponent(file.name).path])
                    }
                }
            }
        } catch {
            FileHandle.standardError.write(Data("error: cannot write to '\(output)': \(ModelFileChecker.reason(error))\n".utf8))
            throw ExitCode(2)
        }
    }
}
