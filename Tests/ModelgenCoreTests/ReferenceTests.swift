import Foundation
@testable import ModelgenCore
import Testing

/// The emitter's output for the example models equals the checked-in reference files
/// (Tests/GeneratedCodeTests/Reference, compiled and run by GeneratedCodeTests) byte for byte.
/// After an intended change, run `make reference` and review the diff.
@Suite struct ReferenceTests {
    static let models = ["Blog", "Graphics", "Staff"]

    /// Each model file with the folder its reference output is in: the example models (compiled and
    /// run by GeneratedCodeTests) and the runtime tests' model (compiled and run by ModelgenRuntimeTests).
    static let references = models.map { ("Examples/\($0)/\($0).model.yaml", "Tests/GeneratedCodeTests/Reference/\($0)") }
        + [("Tests/Models/RuntimeFixture.model.yaml", "Tests/ModelgenRuntimeTests/Generated"),
           ("Tests/Models/Shop.model.yaml", "Tests/ModelgenRuntimeTests/GeneratedShop"),
           ("Tests/Models/Literals.model.yaml", "Tests/GeneratedCodeTests/Reference/Literals"),
           // The example that commits its generated code (make examples also runs its --check).
           ("Examples/Inventory/Sources/Inventory/Inventory.model.yaml", "Examples/Inventory/Sources/Inventory/Generated")]

    /// A version folder: the current version's code with the earlier versions' descriptions, as
    /// `modelgen generate Clinic.modelversions` writes it (GeneratedCodeTests compiles and runs it).
    @Test func aVersionFolderMatchesTheReference() throws {
        let folder = packageRoot.appendingPathComponent("Tests/Fixtures/Versions/Clinic.modelversions")
        let sources = try (1...4).map { number in
            let url = folder.appendingPathComponent("v\(number).model.yaml")
            return ModelSource(path: url.path, contents: try Data(contentsOf: url))
        }
        let directory = packageRoot.appendingPathComponent("Tests/GeneratedCodeTests/Reference/Clinic")
        var config = GenerationConfiguration(outputDirectory: directory.path)
        config.earlierVersions[sources[3].path] = EarlierVersions(models: try sources.prefix(3).map { try #require(ModelCheck.run(data: $0.contents, path: $0.path).validated) })
        let files = try Modelgen.generate(input: [sources[3]], config: config, diagnostics: CollectedDiagnostics()).files
        try expectFiles(files, in: directory)
        #expect(files[0].contents.contains("static var versions: [ModelgenRuntime.ManagedObjectModel] { history.versions }"))
        #expect(files[0].contents.contains("current: model, currentNumber: 4, firstNumber: 1,"))
    }

    @Test(arguments: references)
    func generatedCodeMatchesTheReference(path: String, referenceFolder: String) throws {
        // Through the pipeline's one entry point, as `modelgen generate` runs it.
        let source = ModelSource(path: packageRoot.appendingPathComponent(path).path, contents: try Data(contentsOf: packageRoot.appendingPathComponent(path)))
        let directory = packageRoot.appendingPathComponent(referenceFolder)
        let diagnostics = CollectedDiagnostics()
        let files = try Modelgen.generate(input: [source], config: GenerationConfiguration(outputDirectory: directory.path), diagnostics: diagnostics).files
        #expect(diagnostics.all.isEmpty, "\(diagnostics.all)")
        try expectFiles(files, in: directory)
    }

    /// Expects `files` to be the `.swift` files of `directory`, byte for byte.
    private func expectFiles(_ files: [GeneratedFile], in directory: URL) throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }.sorted()
        #expect(onDisk == files.map(\.name).sorted(), "files differ; run `make reference`")
        for file in files {
            let reference = (try? String(contentsOf: directory.appendingPathComponent(file.name), encoding: .utf8)) ?? ""
            let diff = UnifiedDiff.diff(old: reference, new: file.contents, oldName: "reference/\(file.name)", newName: "generated/\(file.name)")
            #expect(diff.isEmpty, "\(file.name) differs from the reference (run `make reference` if intended):\n\(diff)")
        }
    }

    /// The template context is public API: the built-in templates of the release before the context
    /// became data-only (Tests/Fixtures/Templates/Earlier, using `getter`, `setter`, `declaration`, `use`,
    /// `entityList`, `templateDescriptions`, `configurationsLiteral`) still render every reference byte
    /// for byte, through the deprecated names.
    /// Models with aggregate templates are left out: those templates came after the earlier release, whose
    /// model template writes every fetch helper as a fetch of objects (docs/templates.md says so).
    @Test(arguments: references.filter { !$0.0.hasSuffix("RuntimeFixture.model.yaml") })
    func earlierTemplatesStillRenderTheReference(path: String, referenceFolder: String) throws {
        try expectReference(path: path, referenceFolder: referenceFolder, templates: "Tests/Fixtures/Templates/Earlier", named: "earlier-templates")
    }

    /// What the built-in entity template takes written out from the formatter (`declaration`,
    /// `collectionFunctions`, `keyDeclaration`), Templates/Explicit/entity.mustache writes from the data
    /// keys: every reference renders byte for byte either way, so the formatter adds nothing a custom
    /// template cannot write itself, and the explicit template stays a true starting point.
    @Test(arguments: references)
    func explicitEntityTemplateRendersTheReference(path: String, referenceFolder: String) throws {
        try expectReference(path: path, referenceFolder: referenceFolder, templates: "Templates/Explicit", named: "explicit-template")
    }

    /// Generates the model at `path` with the templates in the folder `templates` (the built-in ones for
    /// the others) and expects the files in `referenceFolder`, byte for byte.
    private func expectReference(path: String, referenceFolder: String, templates: String, named label: String) throws {
        let directory = packageRoot.appendingPathComponent(referenceFolder)
        let source = ModelSource(path: packageRoot.appendingPathComponent(path).path, contents: try Data(contentsOf: packageRoot.appendingPathComponent(path)))
        var config = GenerationConfiguration(outputDirectory: directory.path)
        config.templatesDirectory = packageRoot.appendingPathComponent(templates).path
        let files = try Modelgen.generate(input: [source], config: config, diagnostics: CollectedDiagnostics()).files
        #expect(files.count > 1)
        for file in files {
            let reference = (try? String(contentsOf: directory.appendingPathComponent(file.name), encoding: .utf8)) ?? ""
            let diff = UnifiedDiff.diff(old: reference, new: file.contents, oldName: "reference/\(file.name)", newName: "\(label)/\(file.name)")
            #expect(diff.isEmpty, "\(file.name) from \(templates) differs from the reference:\n\(diff)")
        }
    }

    /// The same in the forms the references do not take: every reference model with accessors instead
    /// of `@Managed` (derived attributes then read `managedValue(at:)` without a setter), in one file,
    /// and public.
    @Test(arguments: references.map(\.0))
    func explicitEntityTemplateAgreesInEveryPropertyStyle(path: String) throws {
        let check = ModelCheck.run(data: try Data(contentsOf: packageRoot.appendingPathComponent(path)), path: path)
        let model = try #require(check.validated)
        let builtin = try ModelEmitter()
        let explicit = try ModelEmitter(templatesDirectory: packageRoot.appendingPathComponent("Templates/Explicit").path)
        for style in [PropertyStyle.managed, .accessors] {
            for singleFile in [false, true] {
                var options = GenerationOptions()
                options.propertyStyle = style
                options.singleFile = singleFile
                options.access = .public
                let expected = try builtin.generate(model, options: options)
                let written = try explicit.generate(model, options: options)
                #expect(expected.map(\.name) == written.map(\.name))
                for (file, other) in zip(expected, written) {
                    let diff = UnifiedDiff.diff(old: file.contents, new: other.contents, oldName: "builtin/\(file.name)", newName: "explicit/\(other.name)")
                    #expect(diff.isEmpty, "\(style) single file \(singleFile): \(diff)")
                }
            }
        }
    }

    @Test(arguments: models)
    func singleFileOutputMatchesItsReference(model: String) throws {
        let path = "Examples/\(model)/\(model).model.yaml"
        let check = ModelCheck.run(data: try Data(contentsOf: packageRoot.appendingPathComponent(path)), path: path)
        var options = GenerationOptions()
        options.singleFile = true
        options.headerSourcePath = RelativePath.from(directory: "Tests/Reference/SingleFile/\(model)", to: path, base: packageRoot.path)
        let files = try ModelEmitter().generate(try #require(check.validated), options: options)
        let reference = packageRoot.appendingPathComponent("Tests/Reference/SingleFile/\(model)/\(model)Model.swift")
        let text = (try? String(contentsOf: reference, encoding: .utf8)) ?? ""
        let diff = UnifiedDiff.diff(old: text, new: files[0].contents, oldName: "reference", newName: "generated")
        #expect(files.count == 1 && diff.isEmpty, "single-file output differs (run `make reference` if intended):\n\(diff)")
    }

    @Test(arguments: models)
    func outputIsDeterministicAndSingleFileHoldsEverything(model: String) throws {
        let path = "Examples/\(model)/\(model).model.yaml"
        let check = ModelCheck.run(data: try Data(contentsOf: packageRoot.appendingPathComponent(path)), path: path)
        let emitter = try ModelEmitter()
        let first = try emitter.generate(check.validated!, options: GenerationOptions())
        let second = try emitter.generate(check.validated!, options: GenerationOptions())
        #expect(first == second)
        var single = GenerationOptions()
        single.singleFile = true
        let one = try emitter.generate(check.validated!, options: single)
        #expect(one.count == 1 && one[0].name == "\(model)Model.swift")
        for file in first where file.name != one[0].name {
            let className = String(file.name.prefix { $0 != "." && $0 != "+" })
            #expect(one[0].contents.contains("\(className)Keys"))
        }
    }

    /// Empty lists read as a person would write them: no argument spread over lines for nothing.
    @Test func entitiesAndModelsWithNothingToListStayOnOneLine() throws {
        let check = check("model: Min\nentities:\n  Empty: {}\n")
        var options = GenerationOptions()
        options.singleFile = true
        let text = try ModelEmitter().generate(try #require(check.validated), options: options)[0].contents
        #expect(text.contains("""
                    entities: [Entities.empty],
                    fetchRequestTemplates: [],
                    configurations: [:]
                )
            """), "\(text)")
        #expect(text.contains("        static let empty: EntityDescription = EntityDescription(\"Empty\", class: Empty.self)\n    }\n"), "\(text)")
    }

    @Test func entityFilesRenderedInParallelKeepTheirOrderAndContent() throws {
        // 40 entities: enough for the emitter to render entity files on several threads.
        var yaml = "model: Many\nentities:\n"
        for i in 0..<40 { yaml += "  E\(i):\n    attributes: { name\(i): string }\n" }
        let check = ModelCheck.run(data: Data(yaml.utf8), path: "Many.model.yaml")
        let model = try #require(check.validated)
        let emitter = try ModelEmitter()
        let first = try emitter.generate(model, options: GenerationOptions())
        #expect(first.map(\.name) == ["ManyModel.swift"] + (0..<40).map { "E\($0).swift" })
        for i in 0..<40 {
            #expect(first[i + 1].contents.contains("final class E\(i): ModelgenRuntime.ManagedObject {\n    @Managed(slot: 0) var name\(i): String\n"))
        }
        for _ in 0..<5 {
            #expect(try emitter.generate(model, options: GenerationOptions()) == first)
        }
    }

    /// The examples that are copies of the contract's models (Staff is the project's own).
    @Test(.enabled(if: hasSharedDirectory, "../shared is not beside the repository"), arguments: ["Blog", "Graphics"])
    func examplesAreTheSharedModels(model: String) throws {
        let shared = sharedDirectory.appendingPathComponent("models/\(model).model.yaml")
        #expect(try Data(contentsOf: shared) == Data(contentsOf: packageRoot.appendingPathComponent("Examples/\(model)/\(model).model.yaml")),
                "Examples/\(model) is out of step with ../shared/models; copy it and run `make reference`")
    }

    @Test func embeddedTemplatesMatchTheTemplatesFolder() throws {
        let folder = packageRoot.appendingPathComponent("Templates")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".mustache") }
        #expect(Set(names.map { String($0.dropLast(".mustache".count)) }) == Set(ModelEmitter.templateNames))
        let generated = try String(contentsOf: packageRoot.appendingPathComponent("Sources/ModelgenCore/Emitting/BuiltinTemplates.swift"), encoding: .utf8)
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(generated.contains(text.trimmingCharacters(in: .newlines)), "\(name) is not embedded as it is; run `make templates`")
        }
    }

    @Test func headerPathsAreRelativeToTheOutputDirectory() {
        #expect(RelativePath.from(directory: "Sources/Blog/Generated", to: "Sources/Blog/Blog.model.yaml", base: "/p") == "../Blog.model.yaml")
        #expect(RelativePath.from(directory: "/p/Sources/Blog/Generated", to: "Sources/Blog/Blog.model.yaml", base: "/p") == "../Blog.model.yaml")
        #expect(RelativePath.from(directory: "Out", to: "./Shop.model.yaml", base: "/x") == "../Shop.model.yaml")
        #expect(RelativePath.from(directory: "a/b", to: "a/b/c/M.model.yaml", base: "/x") == "c/M.model.yaml")
    }

    @Test func literalsAreEscapedAndRoundTrip() {
        #expect(SwiftLiterals.string("a\"b\\c\n\\(x)\u{7}é") == #""a\"b\\c\n\\(x)\u{7}é""#)
        #expect(SwiftLiterals.identifier("default") == "`default`")
        #expect(SwiftLiterals.identifier("title") == "title")
        for value in [0.1, 1e300, -2.5e-8, 3.0, Double.leastNonzeroMagnitude] {
            #expect(Double(SwiftLiterals.double(value)) == value)
        }
    }

    /// No text ends a comment to become code: every line break Swift or an editor honours (LF, CR,
    /// CRLF, NEL, the Unicode separators) starts a new `///` line; invisible characters (bidirectional
    /// overrides, zero-width) are shown escaped in comments and in string literals.
    @Test func commentsAndLiteralsShowEveryCharacterAndKeepCodeOut() {
        let hostile = "a\rfunc b() {}\r\nc\u{85}d\u{2028}e\u{2029}f\n\u{202E}g\u{200B}"
        let lines = SwiftLiterals.docComment(hostile, indent: "  ")
        #expect(lines == ["  /// a", "  /// func b() {}", "  /// c", "  /// d", "  /// e", "  /// f", "  /// \\u{202e}g\\u{200b}"])
        #expect(SwiftLiterals.commentText("M\r\nfunc x() {}.model.yaml") == "M\\u{a}func x() {}.model.yaml")
        // Plain ASCII takes a shorter path: one line as it is, several split at line feeds, empty ones kept.
        #expect(SwiftLiterals.commentLines("One line.") == ["One line."])
        #expect(SwiftLiterals.commentLines("First.\n\n  Indented.\n") == ["First.", "", "  Indented.", ""])
        #expect(SwiftLiterals.commentLines("\n") == ["", ""])
        #expect(SwiftLiterals.string("\u{202E}\u{200B}\u{85}\u{2028}é🦊") == #""\u{202e}\u{200b}\u{85}\u{2028}é🦊""#)
        for text in [hostile, "\u{7F}\u{9F}\u{FEFF}"] {
            #expect(!SwiftLiterals.string(text).unicodeScalars.contains {
                [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory)
            })
        }
    }
}
