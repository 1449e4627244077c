// swift-tools-version:6.0
import Foundation
import PackageDescription

// libFuzzer targets, one per input surface. Built by scripts/fuzz.sh (make fuzz, make fuzz-long) with
// `-sanitize=fuzzer,address -parse-as-library`: each target defines LLVMFuzzerTestOneInput and
// checks properties of what it reads, not only that nothing crashes.
let modelgenRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let modelgen = modelgenRoot.lastPathComponent

let package = Package(
    name: "ModelgenFuzz",
    dependencies: [.package(path: modelgenRoot.path)],
    targets: [
        .target(name: "CFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzer"]),
        .executableTarget(name: "fuzz-model", dependencies: ["FuzzSupport", .product(name: "ModelgenCore", package: modelgen)]),
        .executableTarget(name: "fuzz-predicate", dependencies: ["FuzzSupport", .product(name: "ModelgenCore", package: modelgen),
                                                                 .product(name: "ModelgenPredicate", package: modelgen)]),
        .executableTarget(name: "fuzz-xml", dependencies: ["FuzzSupport", .product(name: "ModelgenCore", package: modelgen)]),
        .executableTarget(name: "fuzz-config", dependencies: ["FuzzSupport", .product(name: "ModelgenCore", package: modelgen)]),
        .executableTarget(name: "fuzz-template", dependencies: ["FuzzSupport", .product(name: "ModelgenCore", package: modelgen)]),
        .executableTarget(name: "fuzz-sqlite", dependencies: ["FuzzSupport", .product(name: "ModelgenRuntime", package: modelgen)]),
    ],
    swiftLanguageModes: [.v6]
)
