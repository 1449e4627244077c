// swift-tools-version:6.0
import Foundation
import PackageDescription

// A team that commits its generated code: Sources/Inventory/Generated/ is written by
// `swift package --allow-writing-to-package-directory generate-models` (or `modelgen generate`)
// and checked in CI with `modelgen generate Sources/Inventory/Inventory.model.yaml
// --output Sources/Inventory/Generated --check`.
// The repository two folders up is the modelgen dependency; its package name is its folder's name.
let modelgenRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let modelgen = modelgenRoot.lastPathComponent

let package = Package(
    name: "Inventory",
    dependencies: [
        .package(path: modelgenRoot.path),
    ],
    targets: [
        .target(name: "Inventory", dependencies: [.product(name: "ModelgenRuntime", package: modelgen)]),
        .executableTarget(name: "inventory-demo", dependencies: ["Inventory"]),
        .executableTarget(name: "inventory-sync", dependencies: ["Inventory"]),
    ],
    swiftLanguageModes: [.v6]
)
