import ArgumentParser
import Foundation
import ModelgenCore

extension PackageScaffold.GeneratedCode: ExpressibleByArgument {}

/// `modelgen init`: a starter model in a new, runnable package, or added to an existing one.
struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Start a package with a model: a runnable package in an empty folder, or a model added to an existing package.",
        discussion: """
            In a folder without Package.swift, writes a package that builds and runs: Package.swift (modelgen as a dependency, the build-tool plugin wired in), Sources/<name>/Library.model.yaml, Sources/<name>/main.swift (saves, fetches with #Predicate, observes), and the JSON Schemas editors validate the model with (.modelgen/). Then: swift run.

            In a package, adds the model to a target (--target, or the only one) and prints the lines to add to Package.swift.

            --generated committed writes modelgen.yml and the generated Swift into Sources/<target>/Generated instead of using the plugin: run modelgen after editing the model, modelgen --check in CI.

            The package depends on modelgen at --modelgen-path or --modelgen-url; without either, on the clone this modelgen was built from, while it exists.

            Nothing is overwritten: when a file to write exists, nothing is written and the exit status is 1.
            """
    )

    @Option(help: "The package's and its executable target's name (default: the folder's name).")
    var name: String?

    @Option(help: "The folder to write into (default: the current folder).")
    var path = "."

    @Option(help: "In an existing package: the target the model goes into (default: the only folder under Sources/).")
    var target: String?

    @Option(help: "plugin (the build-tool plugin generates on every build) or committed (modelgen.yml; generated Swift written now and committed).")
    var generated: PackageScaffold.GeneratedCode = .plugin

    @Option(help: "Depend on a modelgen clone at this path.")
    var modelgenPath: String?

    @Option(help: "Depend on modelgen at this git URL (with --modelgen-version).")
    var modelgenURL: String?

    @Option(help: "The lowest modelgen version the package accepts, with --modelgen-url.")
    var modelgenVersion = ModelgenVersion.current

    /// `path` from the current folder, standardized.
    static func absolute(_ path: String) -> URL {
        URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
    }

    /// The clone this binary was built from (its sources' path), when it is still there.
    static var buildCheckout: String? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let manifest = (try? String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""
        return manifest.contains("name: \"modelgen\"") ? root.path : nil
    }

    func run() throws {
        let folder = Self.absolute(path)
        let dependency = try self.dependency()
        let existingPackage = FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path)
        let packageName = name ?? folder.lastPathComponent
        if !existingPackage, let problem = PackageScaffold.problem(withName: packageName) { fail(problem) }
        var scaffold = PackageScaffold(name: packageName, dependency: dependency, generatedCode: generated)
        if existingPackage {
            scaffold.target = try existingTarget(in: folder)
        } else if let target {
            scaffold.target = target
        }
        let files = existingPackage ? scaffold.modelFiles() : scaffold.newPackageFiles()
        let taken = files.map(\.path).filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
        if !taken.isEmpty {
            fail("\(taken.map { folder.appendingPathComponent($0).path }.joined(separator: ", ")) already exist\(taken.count == 1 ? "s" : ""); nothing was written")
        }
        for file in files {
            let url = folder.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.contents.utf8).write(to: url, options: .atomic)
            print("wrote \(file.path)")
        }
        if generated == .committed {
            var job = GenerationJob(files: [folder.appendingPathComponent(scaffold.modelPath).path],
                                    output: folder.appendingPathComponent(scaffold.generatedPath).path, format: .text, strict: false)
            job.useCache = false
            try job.run()
            print("wrote \(scaffold.generatedPath)/")
        }
        if existingPackage {
            print("\n" + scaffold.manifestAdditions())
        } else {
            print("\nBuild and run it: swift run --package-path \(path == "." ? "." : path) \(scaffold.target)")
        }
    }

    private func dependency() throws -> PackageScaffold.Dependency {
        switch (modelgenPath, modelgenURL) {
        case (.some, .some):
            fail("--modelgen-path and --modelgen-url name two places; give one")
        case (.some(let path), nil):
            let absolute = Self.absolute(path).path
            guard FileManager.default.fileExists(atPath: absolute + "/Package.swift") else { fail("--modelgen-path \(path): no Package.swift there") }
            return .path(absolute)
        case (nil, .some(let url)):
            return .url(url, from: modelgenVersion)
        case (nil, nil):
            guard let checkout = Self.buildCheckout else {
                fail("this modelgen was not built from a clone that still exists: say where the package depends on modelgen with --modelgen-path PATH (a clone) or --modelgen-url URL")
            }
            return .path(checkout)
        }
    }

    /// The target of an existing package the model goes into.
    private func existingTarget(in folder: URL) throws -> String {
        let sources = folder.appendingPathComponent("Sources")
        let targets = ((try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []).filter { name in
            var isFolder: ObjCBool = false
            return !name.hasPrefix(".") && FileManager.default.fileExists(atPath: sources.appendingPathComponent(name).path, isDirectory: &isFolder) && isFolder.boolValue
        }.sorted()
        if let target {
            guard targets.contains(target) else { fail("no target folder Sources/\(target) in \(folder.path); its targets: \(targets.joined(separator: ", "))") }
            return target
        }
        guard targets.count == 1, let only = targets.first else {
            fail(targets.isEmpty ? "\(folder.path) has no target folder under Sources/: create one, or pass --target"
                                 : "\(folder.path) has several targets (\(targets.joined(separator: ", "))): pass --target")
        }
        return only
    }

    private func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        Init.exit(withError: ExitCode(1))
    }
}
