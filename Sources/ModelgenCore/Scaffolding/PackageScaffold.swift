import Foundation

/// What `modelgen init` writes, in memory: a starter model (a small lending library, `Library.model.yaml`),
/// the JSON Schemas editors validate it with, and either a runnable package around them (in an empty
/// folder) or the lines to add to an existing package.
///
/// Two ways to build the model, as teams do: the build-tool plugin generates the Swift on every build
/// (``GeneratedCode/plugin``, the default), or the generated Swift is committed, listed in `modelgen.yml`
/// and checked in CI with `modelgen --check` (``GeneratedCode/committed``).
public struct PackageScaffold: Sendable {
    /// How the package gets the generated Swift.
    public enum GeneratedCode: String, Sendable, CaseIterable {
        /// The build-tool plugin generates it on every build; nothing generated is committed.
        case plugin
        /// `modelgen` (reading `modelgen.yml`) writes it into `Sources/<target>/Generated`, committed.
        case committed
    }

    /// Where the package finds modelgen.
    public enum Dependency: Sendable, Equatable {
        /// A clone on disk (`.package(path:)`); its package identity is the folder's name.
        case path(String)
        /// A git URL, from a version on (`.package(url:from:)`).
        case url(String, from: String)

        /// The `.package(…)` line of a manifest.
        public var declaration: String {
            switch self {
            case .path(let path): return ".package(path: \(SwiftLiterals.string(path)))"
            case .url(let url, let version): return ".package(url: \(SwiftLiterals.string(url)), from: \(SwiftLiterals.string(version)))"
            }
        }

        /// The name products of the dependency are qualified with (`package:`): SwiftPM's identity,
        /// the last component of the path or URL without `.git`.
        public var identity: String {
            let text: String
            switch self {
            case .path(let path): text = path
            case .url(let url, _): text = url
            }
            var last = text.split(separator: "/").last.map(String.init) ?? text
            if last.hasSuffix(".git") { last.removeLast(4) }
            return last
        }
    }

    /// A file to write, relative to the package's root.
    public struct File: Sendable, Equatable {
        /// The path relative to the package's root.
        public var path: String
        /// The whole text.
        public var contents: String
    }

    /// The package's (and its executable target's) name.
    public var name: String
    /// The target the model goes into.
    public var target: String
    /// Where modelgen comes from.
    public var dependency: Dependency
    /// Plugin or committed code.
    public var generatedCode: GeneratedCode

    /// A scaffold for the package `name` whose model goes into `target` (by default an executable target
    /// of the package's name).
    public init(name: String, target: String? = nil, dependency: Dependency, generatedCode: GeneratedCode = .plugin) {
        self.name = name
        self.target = target ?? name
        self.dependency = dependency
        self.generatedCode = generatedCode
    }

    /// Why `name` cannot name a package and its target (nil when it can).
    public static func problem(withName name: String) -> String? {
        guard let first = name.unicodeScalars.first, CharacterSet.letters.contains(first),
              name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "_" || $0 == "-" })
        else { return "'\(name)' cannot name a package and its target: use letters, digits, '_' and '-', starting with a letter (--name)" }
        return nil
    }

    /// The model file's path in the package.
    public var modelPath: String { "Sources/\(target)/Library.model.yaml" }
    /// Where committed generated code goes.
    public var generatedPath: String { "Sources/\(target)/Generated" }
    /// The manifest line of the Apple platforms modelgen needs (the releases its package declares).
    static let platforms = "platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],"

    /// The folder of the JSON Schemas.
    public static let schemaFolder = ".modelgen"

    /// The files of a new, runnable package: its manifest, the model, a `main.swift` that saves,
    /// fetches and observes, the schemas, a `.gitignore`, and for committed code `modelgen.yml`.
    public func newPackageFiles() -> [File] {
        var files = [File(path: "Package.swift", contents: manifest()),
                     File(path: "Sources/\(target)/main.swift", contents: Self.starter("main.swift")),
                     File(path: ".gitignore", contents: ".build/\n.swiftpm/\n")]
        files += modelFiles()
        return files
    }

    /// The files added to an existing package: the model, the schemas, and for committed code `modelgen.yml`.
    public func modelFiles() -> [File] {
        var files = [File(path: modelPath, contents: Self.starter("Library.model.yaml"))]
        if generatedCode == .committed {
            files.append(File(path: "modelgen.yml", contents: projectConfiguration()))
        }
        files += EmbeddedScaffoldFiles.schemas.sorted { $0.key < $1.key }.map {
            File(path: "\(Self.schemaFolder)/\($0.key)", contents: $0.value + "\n")
        }
        return files
    }

    /// The manifest of a new package.
    public func manifest() -> String {
        """
        // swift-tools-version:6.1
        import PackageDescription

        let package = Package(
            name: \(SwiftLiterals.string(name)),
            \(Self.platforms)
            dependencies: [
                \(dependency.declaration),
            ],
            targets: [
                .executableTarget(
                    name: \(SwiftLiterals.string(target)),
        \(targetLines(indent: "            "))
                ),
            ],
            swiftLanguageModes: [.v6]
        )

        """
    }

    /// What to add to an existing package's manifest, as text to print.
    public func manifestAdditions() -> String {
        """
        Add modelgen to the package's dependencies:

            \(dependency.declaration),

        and to the target \(target) (in targets:):

        \(targetLines(indent: "    "))

        The platforms modelgen needs (skip on Linux-only packages):

            \(Self.platforms)

        """
    }

    private func targetLines(indent: String) -> String {
        let product = ".product(name: \"ModelgenRuntime\", package: \(SwiftLiterals.string(dependency.identity)))"
        var lines = ["dependencies: [\(product)],"]
        if generatedCode == .plugin {
            lines.append("plugins: [.plugin(name: \"ModelgenPlugin\", package: \(SwiftLiterals.string(dependency.identity)))]")
        } else {
            lines.append("exclude: [\"Library.model.yaml\"]")
        }
        return lines.map { indent + $0 }.joined(separator: "\n")
    }

    /// `modelgen.yml` for committed code.
    public func projectConfiguration() -> String {
        """
        # yaml-language-server: $schema=\(Self.schemaFolder)/modelgen.schema.json
        # `modelgen` regenerates every model listed here after you edit it; `modelgen --check` fails
        # (with a diff) when the committed code is stale, for CI.
        models:
          - path: \(modelPath)
            output: \(generatedPath)

        """
    }

    private static func starter(_ name: String) -> String {
        (EmbeddedScaffoldFiles.starter[name] ?? "") + "\n"
    }
}
