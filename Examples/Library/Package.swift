// swift-tools-version:6.0
import Foundation
import PackageDescription

// A lending library: the model's fetch request templates use the predicate language broadly
// (BETWEEN and IN on variables, ANY … IN, SUBQUERY with @count, [cd], a $FETCH_SOURCE fetched
// property); the build-tool plugin generates the code; library-check runs every template and a set
// of #Predicate queries on the in-memory and the SQLite store and compares the results.
let modelgenRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let modelgen = modelgenRoot.lastPathComponent

let package = Package(
    name: "Library",
    dependencies: [
        .package(path: modelgenRoot.path),
    ],
    targets: [
        .target(
            name: "Lending",
            dependencies: [.product(name: "ModelgenRuntime", package: modelgen)],
            plugins: [.plugin(name: "ModelgenPlugin", package: modelgen)]
        ),
        .executableTarget(name: "library-check", dependencies: ["Lending"]),
    ],
    swiftLanguageModes: [.v6]
)
