import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory generate-models [--target T …]`:
/// writes the Swift for every `*.model.yaml` (and version folder, `NAME.modelversions`) of the
/// package's targets (or the named ones) into a `Generated` folder beside each model, for teams who commit generated code and
/// check it in CI with `modelgen generate … --check`.
@main
struct GenerateModelsCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let targets = names.isEmpty ? context.package.targets : try context.package.targets(named: names)
        let modelgen = try context.tool(named: "modelgen").url
        var failures = 0
        for case let target as SourceModuleTarget in targets {
            // A version folder (NAME.modelversions) is one model: generated once, from the folder.
            var models: [URL] = []
            for file in target.sourceFiles where Self.isModel(file.url) {
                let parent = file.url.deletingLastPathComponent()
                let model = parent.lastPathComponent.hasSuffix(".modelversions") ? parent : file.url
                if !models.contains(model) { models.append(model) }
            }
            for model in models {
                let output = model.deletingLastPathComponent().appending(path: "Generated")
                let process = Process()
                process.executableURL = modelgen
                process.arguments = ["generate", model.path(percentEncoded: false), "--output", output.path(percentEncoded: false)]
                try process.run()
                process.waitUntilExit()
                if process.terminationStatus == 0 {
                    print("generated \(output.path(percentEncoded: false)) from \(model.lastPathComponent)")
                } else {
                    failures += 1
                }
            }
        }
        if failures > 0 {
            Diagnostics.error("modelgen failed for \(failures) model file\(failures == 1 ? "" : "s")")
            throw ExitCode(1)
        }
    }

    static func isModel(_ url: URL) -> Bool {
        url.lastPathComponent.hasSuffix(".model.yaml") || url.lastPathComponent.hasSuffix(".model.yml")
    }

    /// The exit code of a failed run.
    struct ExitCode: Error {
        let code: Int32
        init(_ code: Int32) { self.code = code }
    }
}
