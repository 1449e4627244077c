import Foundation
import PackagePlugin

/// Generates Swift for every `*.model.yaml` / `*.model.yml` file of a target, one build
/// command per model (a version folder, `NAME.modelversions`, is one model: its current version),
/// into the plugin's work directory. Each command declares its one
/// output file up front (single-file mode) and lists the model, the generator, and the
/// optional `modelgen-config.yaml` and `modelgen-templates/*.mustache` beside the model as
/// inputs, so SwiftPM reruns it only when one of them changed. A model error fails the
/// build with `MODEL:LINE:COLUMN: error: …`.
@main
struct ModelgenPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let modelgen = try context.tool(named: "modelgen").url
        return Self.commands(models: target.sourceFiles.map(\.url).filter(Self.isModel), workDirectory: context.pluginWorkDirectoryURL,
                             modelgen: modelgen)
    }

    /// One command per model file, and one per version folder (`NAME.modelversions`: its versions are
    /// one model, generated as its current version, every version an input).
    static func commands(models: [URL], workDirectory: URL, modelgen: URL) -> [Command] {
        var folders: [URL: [URL]] = [:]
        var commands: [Command] = []
        for model in models {
            let parent = model.deletingLastPathComponent()
            if parent.lastPathComponent.hasSuffix(versionFolderSuffix) {
                folders[parent, default: []].append(model)
            } else {
                commands.append(command(model: model, workDirectory: workDirectory, modelgen: modelgen))
            }
        }
        for (folder, versions) in folders.sorted(by: { $0.key.path < $1.key.path }) {
            commands.append(command(model: folder, versions: versions.sorted { $0.path < $1.path }, workDirectory: workDirectory, modelgen: modelgen))
        }
        return commands
    }

    /// The suffix of a version folder's name.
    static let versionFolderSuffix = ".modelversions"

    /// The build command for one model file (or version folder, with its `versions`): its single output
    /// declared, its inputs listed.
    static func command(model: URL, versions: [URL] = [], workDirectory: URL, modelgen: URL) -> Command {
        let stem = stem(of: model)
        let outputDirectory = workDirectory.appending(path: stem)
        let outputName = "\(stem).generated.swift"
        var arguments = ["generate", model.path(percentEncoded: false),
                         "--output", outputDirectory.path(percentEncoded: false), "--single-file-name", outputName]
        var inputs = (versions.isEmpty ? [model] : versions) + [modelgen]
        // modelgen-config.yaml beside the model: options for plugin builds (access level, imports).
        let config = model.deletingLastPathComponent().appending(path: "modelgen-config.yaml")
        if FileManager.default.fileExists(atPath: config.path(percentEncoded: false)) {
            arguments += ["--config", config.path(percentEncoded: false)]
            inputs.append(config)
        }
        // modelgen-templates/ beside the model: the user's templates, inputs so an edit reruns the command.
        let templates = model.deletingLastPathComponent().appending(path: "modelgen-templates")
        let templateFiles = ((try? FileManager.default.contentsOfDirectory(atPath: templates.path(percentEncoded: false))) ?? [])
            .filter { $0.hasSuffix(".mustache") }.sorted().map { templates.appending(path: $0) }
        if !templateFiles.isEmpty {
            arguments += ["--templates", templates.path(percentEncoded: false)]
            inputs += templateFiles
        }
        return .buildCommand(
            displayName: "Generating Swift for \(model.lastPathComponent)",
            executable: modelgen,
            arguments: arguments,
            inputFiles: inputs,
            outputFiles: [outputDirectory.appending(path: outputName)])
    }

    static func isModel(_ url: URL) -> Bool {
        url.lastPathComponent.hasSuffix(".model.yaml") || url.lastPathComponent.hasSuffix(".model.yml")
    }

    static func stem(of url: URL) -> String {
        let name = url.lastPathComponent
        for suffix in [".model.yaml", ".model.yml", versionFolderSuffix] where name.hasSuffix(suffix) {
            return String(name.dropLast(suffix.count))
        }
        return name
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

/// The same build commands for Xcode projects (not only Swift packages): every
/// `*.model.yaml` among a target's input files.
extension ModelgenPlugin: XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        let modelgen = try context.tool(named: "modelgen").url
        return Self.commands(models: target.inputFiles.map(\.url).filter(Self.isModel), workDirectory: context.pluginWorkDirectoryURL,
                             modelgen: modelgen)
    }
}
#endif
