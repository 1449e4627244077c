import Foundation
import TestScratch
@testable import ModelgenCore
import Testing

/// Every Core Data model in `../shared/realworld/` (real models from public repositories) goes the
/// whole way: `modelgen import` → `validate` → `generate` → compiled against ModelgenRuntime in the
/// Swift 6 language mode with warnings as errors → a smoke run that inserts one object of each
/// concrete entity with its required values, saves (in memory and in SQLite) and fetches it back.
/// A new file in the folder is covered without code changes; so is one in `Tests/Fixtures/CoreDataModels/`,
/// the project's own models of constructs Xcode accepts (each written for a construct, not copied).
@Suite struct RealWorldModelTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let folder = root.deletingLastPathComponent().appendingPathComponent("shared/realworld")
    static let ownModels = root.appendingPathComponent("Tests/Fixtures/CoreDataModels")

    /// Swift values for the types a transformable attribute may name without a user type.
    static let foundationSamples: [String: String] = [
        "Data": "Data([1, 2, 3])", "String": "\"sample\"", "Double": "1.5", "Date": "Date(timeIntervalSinceReferenceDate: 0)",
        "URL": "URL(string: \"https://example.com/\")!", "UUID": "UUID()", "Decimal": "Decimal(1)",
        "AttributedString": "AttributedString(\"sample\")", "[String]": "[\"sample\"]",
        "[String: String]": "[\"key\": \"value\"]", "Set<String>": "Set([\"sample\"])",
    ]

    @Test func everyRealWorldModelImportsGeneratesCompilesAndRuns() throws {
        func models(in folder: URL) -> [URL] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .filter { $0.hasSuffix(".xml") }.sorted().map { folder.appendingPathComponent($0) }
        }
        let shared = models(in: Self.folder)
        // CI always has ../shared; a developer's checkout may not.
        #expect(!shared.isEmpty || ProcessInfo.processInfo.environment["CI"] != "true", "\(Self.folder.path) has no models")
        let files = shared + models(in: Self.ownModels)
        #expect(files.count > shared.count, "no models in \(Self.ownModels.path)")
        let work = Self.root.appendingPathComponent(".build/realworld-smoke")
        let sources = work.appendingPathComponent("Sources")
        let models = work.appendingPathComponent("Models")
        for folder in [sources, models] {
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let harness = try String(contentsOf: Self.root.appendingPathComponent("Tests/Fixtures/RealWorldSmoke/SmokeRun.swift"), encoding: .utf8)

        var targets: [String] = []
        for url in files {
            let file = url.lastPathComponent
            let name = XcodeModelLocator.modelName(from: (file as NSString).deletingPathExtension)
            let target = "Smoke\(name)"
            let directory = sources.appendingPathComponent(target)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let modelFile = models.appendingPathComponent("\(name).model.yaml").path

            let imported = try modelgen(["import", url.path, "--output", modelFile,
                                         "--manual-codegen", "class"])
            #expect(imported.status == 0, "import \(file): \(imported.stderr)")
            guard imported.status == 0 else { continue }
            let validated = try modelgen(["validate", modelFile])
            #expect(validated.status == 0, "validate \(file): \(validated.stderr)")
            let generated = try modelgen(["generate", modelFile, "--output", directory.appendingPathComponent("Generated").path,
                                          "--human-dir", directory.appendingPathComponent("Classes").path])
            #expect(generated.status == 0, "generate \(file): \(generated.stderr)")
            guard validated.status == 0, generated.status == 0 else { continue }

            let parsed = try #require(ModelParser.parse(data: Data(contentsOf: URL(fileURLWithPath: modelFile)), path: modelFile).model)
            try Self.stubs(for: parsed).write(to: directory.appendingPathComponent("Stubs.swift"), atomically: true, encoding: .utf8)
            try harness.write(to: directory.appendingPathComponent("SmokeRun.swift"), atomically: true, encoding: .utf8)
            let main = """
                import Foundation
                import ModelgenRuntime

                do {
                    try smokeRun(\(parsed.name.value)Model.model, samples: smokeSamples, storeURL: URL(fileURLWithPath: CommandLine.arguments[1]))
                } catch {
                    FileHandle.standardError.write(Data("smoke run failed: \\(error)\\n".utf8))
                    exit(1)
                }

                """
            try main.write(to: directory.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
            targets.append(target)
        }
        guard !targets.isEmpty else { return }

        let identity = Self.root.lastPathComponent.lowercased()
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "RealWorldSmoke",
                dependencies: [.package(path: "\(Self.root.path)")],
                targets: [
            \(targets.map { "        .executableTarget(name: \"\($0)\", dependencies: [.product(name: \"ModelgenRuntime\", package: \"\(identity)\")], swiftSettings: [.unsafeFlags([\"-warnings-as-errors\"])])," }.joined(separator: "\n"))
                ]
            )

            """
        try manifest.write(to: work.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        let build = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "build", "--package-path", work.path], in: work)
        #expect(build.status == 0, "swift build of the generated code:\n\(build.stdout.suffix(6000))\n\(build.stderr.suffix(3000))")
        guard build.status == 0 else { return }
        let binaries = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "build", "--package-path", work.path, "--show-bin-path"], in: work)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        for target in targets {
            let store = scratchDirectory.appendingPathComponent("smoke-\(UUID().uuidString).sqlite")
            defer {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
                try? FileManager.default.removeItem(atPath: store.path + "-external")
            }
            let result = try runProcess(URL(fileURLWithPath: binaries + "/" + target), [store.path], in: work)
            #expect(result.status == 0, "\(target): \(result.stdout)\n\(result.stderr)")
            #expect(result.stdout.components(separatedBy: "inserted, saved and fetched back").count == 3, "\(target): \(result.stdout)")
        }
    }

    /// Declarations for the types the model names but does not define (what a user would write), and a sample value of each.
    static func stubs(for model: ObjectModel) -> String {
        var types: [String: String] = [:]        // swiftType → sample expression
        var declarations: [String] = []
        var transformers: [String: String] = [:] // transformer → its value type
        for entity in model.entities {
            for attribute in entity.attributes where attribute.type.value == .transformable {
                guard let swiftType = attribute.swiftType?.value else { continue }
                if let transformer = attribute.transformer?.value, transformers[transformer] == nil { transformers[transformer] = swiftType }
                if types[swiftType] != nil { continue }
                if let sample = foundationSamples[swiftType] {
                    types[swiftType] = sample
                } else {
                    declarations.append("struct \(swiftType): Codable, Equatable, Sendable {}")
                    types[swiftType] = "\(swiftType)()"
                }
            }
        }
        for (transformer, value) in transformers.sorted(by: { $0.key < $1.key }) {
            let decoded = foundationSamples[value] ?? "\(value)()"
            declarations.append("""
                enum \(transformer): ManagedValueTransformer {
                    static func encode(_ value: \(value)) throws -> Data { Data("\\(value)".utf8) }
                    static func decode(_ data: Data) throws -> \(value) { \(value == "Data" ? "data" : decoded) }
                }
                """)
        }
        let samples = types.sorted { $0.key < $1.key }.map { "    \"\($0.key)\": \($0.value)," }
        return """
            import Foundation
            import ModelgenRuntime

            // What the user of this model would write: the types it names, as stubs.
            \(declarations.joined(separator: "\n\n"))

            let smokeSamples: [String: any Sendable] = [
            \(samples.isEmpty ? "    :" : samples.joined(separator: "\n"))
            ]

            """
    }
}
