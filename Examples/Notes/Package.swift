// swift-tools-version:6.0
import Foundation
import PackageDescription

// This example depends on the modelgen repository two folders up, by path. A path
// dependency's package name is its folder's name, so read it rather than assume it.
// In your own package: .package(url: "https://github.com/OWNER/modelgen", from: "0.1.0") and package: "modelgen".
let modelgenRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let modelgen = modelgenRoot.lastPathComponent

let package = Package(
    name: "Notes",
    dependencies: [
        .package(path: modelgenRoot.path),
    ],
    targets: [
        // Notes.model.yaml in this target is turned into Swift at build time by the plugin.
        .target(
            name: "NotesModel",
            dependencies: [.product(name: "ModelgenRuntime", package: modelgen)],
            plugins: [.plugin(name: "ModelgenPlugin", package: modelgen)]
        ),
        .executableTarget(name: "notes-demo", dependencies: ["NotesModel"]),
    ],
    swiftLanguageModes: [.v6]
)
