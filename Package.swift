// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "modelgen",
    // Every Apple-platform API the code uses is available from these releases: Observation and
    // Foundation's Predicate (macOS 14 / iOS 17), Synchronization's Mutex and Atomic and task
    // executors (macOS 15 / iOS 18). Linux has no deployment target.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .executable(name: "modelgen", targets: ["modelgen"]),
        .library(name: "ModelgenCore", targets: ["ModelgenCore"]),
        .library(name: "ModelgenPredicate", targets: ["ModelgenPredicate"]),
        .library(name: "ModelgenRuntime", targets: ["ModelgenRuntime"]),
        // The PostgreSQL store: its code (and PostgresNIO, which it needs) is built only with the
        // package trait `PostgreSQL` (`.package(url: …, traits: ["PostgreSQL"])`, or
        // `swift build --traits PostgreSQL`); without it the product is empty and NIO is never fetched.
        .library(name: "ModelgenPostgres", targets: ["ModelgenPostgres"]),
        .plugin(name: "ModelgenPlugin", targets: ["ModelgenPlugin"]),
        .plugin(name: "GenerateModelsCommand", targets: ["GenerateModelsCommand"]),
    ],
    traits: [
        .trait(name: "PostgreSQL", description: "The PostgreSQL store (ModelgenPostgres), on PostgresNIO"),
        .default(enabledTraits: []),
    ],
    // Ranges, never exact versions, so that modelgen resolves beside other packages that share these
    // dependencies; each lower bound is the lowest version the project builds and tests with
    // (scripts/test-consumer.sh resolves a package that pins Yams to its lower bound). Package.resolved,
    // kept out of git, pins the project's own builds.
    dependencies: [
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/jpsim/Yams", "5.0.1"..<"7.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // `make docs` only: the DocC catalogs of ModelgenRuntime and ModelgenCore (swift package
        // generate-documentation). No product uses it, so it never enters a consumer's resolved graph.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The NSPredicate-format subset: lexer, parser and AST with positions.
        // Dependency-free so that the generator and the runtime can both use it.
        .target(name: "ModelgenPredicate"),

        // A model version as lines, and a model's earlier versions as edits of those lines: written by
        // the generator, read by the runtime (one format, dependency-free, shared by both).
        .target(name: "ModelgenArchive"),

        // The generator core: model file text in, model + diagnostics out. Works in memory.
        .target(
            name: "ModelgenCore",
            dependencies: [
                "ModelgenPredicate", "ModelgenArchive",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),

        // What generated code links against: managed objects, contexts, stores, fetching.
        // Depends on the predicate language and the system's SQLite only (never on Yams or ArgumentParser).
        .target(name: "ModelgenRuntime", dependencies: ["ModelgenPredicate", "ModelgenArchive", "CSQLite"]),

        .target(
            name: "ModelgenPostgres",
            dependencies: [
                "ModelgenRuntime",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),

        // The system's SQLite, for the runtime's SQLite store.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),

        // The thin command-line front end.
        .executableTarget(
            name: "modelgen",
            dependencies: [
                "ModelgenCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // SwiftPM build-tool plugin: generates Swift for the *.model.yaml files of a target.
        .plugin(name: "ModelgenPlugin", capability: .buildTool(), dependencies: ["modelgen"]),
        // `swift package generate-models`: writes generated files into the source tree, for teams who commit them.
        .plugin(
            name: "GenerateModelsCommand",
            capability: .command(
                intent: .custom(verb: "generate-models", description: "Generate Swift for the *.model.yaml files of the package's targets"),
                permissions: [.writeToPackageDirectory(reason: "writes generated Swift beside each model file")]
            ),
            dependencies: ["modelgen"]
        ),

        // `make bench`: synthetic models, timed parse-only vs validate.
        .executableTarget(
            name: "modelgen-bench",
            dependencies: ["ModelgenCore", "ModelgenRuntime"]
        ),

        // `make bench`: ModelgenRuntime property access, insert + save, fetch; the SQLite store beside raw SQLite.
        .executableTarget(
            name: "modelgen-runtime-bench",
            dependencies: [
                "ModelgenRuntime", "CSQLite", "ClinicVersions",
                .target(name: "ModelgenPostgres", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),

        // A child process for the SQLite store's kill and multi-process tests.
        .executableTarget(
            name: "modelgen-store-stress",
            dependencies: ["ModelgenRuntime", "ClinicVersions", "CSQLite", .target(name: "ModelgenPostgres", condition: .when(traits: ["PostgreSQL"])),
                           .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"]))]
        ),

        .testTarget(name: "ModelgenPredicateTests", dependencies: ["ModelgenPredicate"]),
        .testTarget(name: "ModelgenCoreTests", dependencies: ["ModelgenCore", "TestScratch"]),
        .testTarget(name: "ModelgenCLITests", dependencies: ["modelgen", "ModelgenCore", "ModelgenRuntime", "ModelgenArchive", "ClinicVersions", "TestScratch"]),
        .testTarget(name: "ModelgenRuntimeTests", dependencies: ["ModelgenRuntime", "SQLiteFaultInjection", "ClinicVersions", "TestScratch"]),
        // What the test targets share: the scratch directory (removed when the test process exits) and a seeded random generator.
        .target(name: "TestScratch", path: "Tests/Support/TestScratch"),
        // A model's four versions and the stages between them, for the staged-migration tests on every store and the kill test.
        .target(name: "ClinicVersions", dependencies: ["ModelgenRuntime"], path: "Tests/Support/ClinicVersions"),
        // A SQLite VFS that fills the "disk" on demand, for the storage-fault tests (C: a VFS is a C struct of callbacks).
        .target(name: "SQLiteFaultInjection", dependencies: ["CSQLite"], path: "Tests/Support/SQLiteFaultInjection"),
        // Built empty without the PostgreSQL trait; `make test-postgres` runs it against a real server.
        .testTarget(
            name: "ModelgenPostgresTests",
            dependencies: [
                "ModelgenPostgres", "ModelgenRuntime", "ClinicVersions",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            ]
        ),
        // The reference output of the example models (Reference/, regenerated by `make reference`),
        // compiled with warnings as errors against the runtime, with the user types they name, and run.
        .testTarget(
            name: "GeneratedCodeTests",
            dependencies: ["ModelgenRuntime"],
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
