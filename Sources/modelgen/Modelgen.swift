import ArgumentParser
import Foundation
import ModelgenCore

/// The `modelgen` command: a thin front end over ModelgenCore.
struct Modelgen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modelgen",
        abstract: "Turns a Core Data–style object model written in YAML into Swift managed-object code.",
        discussion: """
            With no command, modelgen reads ./modelgen.yml and generates every model it lists (flags given here win over the file). modelgen --check checks them all, for CI.

            Examples:
              modelgen init
              modelgen validate Blog.model.yaml
              modelgen validate Models/*.model.yaml --strict --diagnostics github
              modelgen generate Blog.model.yaml --output Sources/Blog/Generated
              modelgen --check

            Exit status: 0 success, 1 model errors or stale output, 2 usage or I/O errors.
            """,
        version: ModelgenVersion.current,
        subcommands: [Project.self, Init.self, Validate.self, Generate.self, Diff.self, Graph.self, Import.self, Export.self, Format.self, Config.self],
        defaultSubcommand: Project.self
    )
}

/// `modelgen` with no command (or `modelgen project`): every model modelgen.yml lists.
struct Project: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "project",
        abstract: "Generate (or --check) every model listed in modelgen.yml; the default command.")

    @Option(help: "The project file listing models and outputs.")
    var config = "modelgen.yml"

    @Flag(help: "Check every listed output instead of writing: exit 1 with diffs when anything is stale.")
    var check = false

    @Flag(help: "Print what would be written, write nothing.")
    var dryRun = false

    @Option(help: "Access level for every entry (wins over the file).")
    var access: AccessLevel?

    @Flag(help: "Treat warnings as errors.")
    var strict = false

    @Flag(help: "Print the warnings of version folders' released versions too (by default one note counts them).")
    var releasedVersionWarnings = false

    @Option(help: "How to print diagnostics: text, json or github.")
    var diagnostics: DiagnosticFormat = .text

    @Flag(help: "Do not skip the run when every entry's inputs and output directory are those of its last run.")
    var noCache = false

    func run() throws {
        guard let project = try ProjectFile.load(config, format: diagnostics) else {
            FileHandle.standardError.write(Data("error: no \(config) here; run a command (see 'modelgen --help') or create \(config) (see README)\n".utf8))
            throw ExitCode(2)
        }
        // Plan every entry, then write (or check) every plan, and exit with the worst status, so one
        // stale or broken model does not hide another. Entries that would write the same file
        // (sharing an output directory) are refused before anything is written.
        var status: Int32 = 0
        let entryJobs = project.entries.map { entry in
            var job = GenerationJob(files: [entry.path], output: entry.output, format: diagnostics, strict: strict)
            job.access = access ?? entry.access
            job.propertyStyle = entry.propertyStyle
            job.singleFile = entry.singleFile ?? false
            job.humanDir = entry.humanDir
            job.templates = entry.templates
            job.check = check
            job.dryRun = dryRun
            job.releasedVersionWarnings = releasedVersionWarnings
            job.oldestVersion = entry.oldestVersion
            return job
        }
        // Nothing changed for any entry since its last run (RegenerationCache): nothing to do. When one
        // changed, every entry runs, so collisions between entries are still found.
        let caches = noCache ? [] : entryJobs.map { RegenerationCache(job: $0) }
        if !caches.isEmpty, caches.allSatisfy({ $0?.isUpToDate() == true }) { return }
        var jobs: [(job: GenerationJob, plan: GenerationPlan, cache: RegenerationCache?)] = []
        for (index, job) in entryJobs.enumerated() {
            do {
                jobs.append((job, try job.plan(), caches.isEmpty ? nil : caches[index]))
            } catch let exit as ExitCode {
                status = max(status, exit.rawValue)
            }
        }
        let colliding = OutputCollisionReport(format: diagnostics).collidingPlans(jobs.map(\.plan))
        if !colliding.isEmpty { status = max(status, 1) }
        for (index, (job, plan, cache)) in jobs.enumerated() where !colliding.contains(index) {
            do {
                try job.apply(plan)
                if plan.printedDiagnostics == 0 { cache?.record(generated: plan.files) }
            } catch let exit as ExitCode {
                status = max(status, exit.rawValue)
            }
        }
        if status != 0 { throw ExitCode(status) }
    }
}

/// Loading modelgen.yml with its diagnostics printed.
enum ProjectFile {
    /// The parsed file; nil when it does not exist; an `ExitCode(1)` after printing its errors.
    static func load(_ path: String, format: DiagnosticFormat) throws -> ProjectConfig? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let (config, diagnostics) = ProjectConfig.parse(data: data, path: path)
        DiagnosticPrinter(format: format).print(diagnostics)
        guard let config else { throw ExitCode(1) }
        return config
    }
}

/// `modelgen config lint`: check modelgen.yml without generating anything.
struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Work with modelgen.yml.",
        subcommands: [Lint.self]
    )

    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Check modelgen.yml: known keys, value kinds, existing model files. Exit 1 on errors.")

        @Option(help: "The project file.")
        var config = "modelgen.yml"

        @Option(help: "How to print diagnostics: text, json or github.")
        var diagnostics: DiagnosticFormat = .text

        func run() throws {
            guard let project = try ProjectFile.load(config, format: diagnostics) else {
                FileHandle.standardError.write(Data("error: cannot read '\(config)'\n".utf8))
                throw ExitCode(2)
            }
            print("\(config): \(project.entries.count) model\(project.entries.count == 1 ? "" : "s"), no problems")
        }
    }
}

@main
enum Main {
    static func main() {
        PeakMemoryReport.installIfAsked()
        do {
            var command = try Modelgen.parseAsRoot()
            try command.run()
        } catch {
            // ArgumentParser reports usage errors with status 64; the spec's status for them is 2.
            let code = Modelgen.exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((Modelgen.fullMessage(for: error) + "\n").utf8))
                Modelgen.exit(withError: ExitCode(2))
            }
            Modelgen.exit(withError: error)
        }
    }
}
