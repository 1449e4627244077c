// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "modelgen",
    products: [
        .executable(name: "modelgen", targets: ["modelgen"]),
        .library(name: "ModelgenCore", targets: ["ModelgenCore"]),
        .library(name: "ModelgenPredicate", targets: ["ModelgenPredicate"]),
        .library(name: "ModelgenRuntime", targets: ["ModelgenRuntime"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        // The NSPredicate-format subset: lexer, parser and AST with positions.
        // Dependency-free so that the generator and the runtime can both use it.
        .target(name: "ModelgenPredicate"),

        // The generator core: model file text in, model + diagnostics out. Works in memory.
        .target(
            name: "ModelgenCore",
            dependencies: [
                "ModelgenPredicate",
                .product(name: "Yams", package: "Yams"),
            ]
        ),

        // What generated code links against: managed objects, contexts, stores, fetching.
        // Depends on the predicate language only (never on Yams or ArgumentParser).
        .target(name: "ModelgenRuntime", dependencies: ["ModelgenPredicate"]),

        // The thin command-line front end.
        .executableTarget(
            name: "modelgen",
            dependencies: [
                "ModelgenCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // `make bench`: synthetic models, timed parse-only vs validate.
        .executableTarget(
            name: "modelgen-bench",
            dependencies: ["ModelgenCore", "ModelgenRuntime", .product(name: "Yams", package: "Yams")]
        ),

        // `make bench`: ModelgenRuntime property access, insert + save, fetch.
        .executableTarget(name: "modelgen-runtime-bench", dependencies: ["ModelgenRuntime"]),

        .testTarget(name: "ModelgenPredicateTests", dependencies: ["ModelgenPredicate"]),
        .testTarget(name: "ModelgenCoreTests", dependencies: ["ModelgenCore"]),
        .testTarget(name: "ModelgenCLITests", dependencies: ["modelgen"]),
        .testTarget(name: "ModelgenRuntimeTests", dependencies: ["ModelgenRuntime"]),
    ],
    swiftLanguageModes: [.v6]
)
