// swift-tools-version:6.1
import Foundation
import PackageDescription

// A shop served by several app servers sharing one database: the same generated classes run on
// SQLite (one machine) or PostgreSQL (many), chosen at run time. The modelgen repository two
// folders up is the dependency, with its PostgreSQL trait on; its package name is its folder's name.
// In your own package: .package(url: "https://github.com/OWNER/modelgen", from: "0.1.0", traits: ["PostgreSQL"]).
let modelgenRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let modelgen = modelgenRoot.lastPathComponent

let package = Package(
    name: "Server",
    dependencies: [
        .package(path: modelgenRoot.path, traits: ["PostgreSQL"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        // Shop.model.yaml is turned into Swift at build time by the plugin.
        .target(
            name: "ShopModel",
            dependencies: [
                .product(name: "ModelgenRuntime", package: modelgen),
                .product(name: "ModelgenPostgres", package: modelgen),
            ],
            plugins: [.plugin(name: "ModelgenPlugin", package: modelgen)]
        ),
        .executableTarget(name: "shop-server", dependencies: ["ShopModel", .product(name: "Hummingbird", package: "hummingbird")]),
        .executableTarget(name: "shop-check", dependencies: ["ShopModel"]),
        // A model kept as released versions (Clinic.modelversions, one model to the plugin: the current
        // version's classes and the earlier versions' descriptions) and a program migrating through them.
        .target(
            name: "ClinicModel",
            dependencies: [
                .product(name: "ModelgenRuntime", package: modelgen),
                .product(name: "ModelgenPostgres", package: modelgen),
            ],
            plugins: [.plugin(name: "ModelgenPlugin", package: modelgen)]
        ),
        .executableTarget(name: "clinic-migrate", dependencies: ["ClinicModel", .product(name: "ModelgenPostgres", package: modelgen)]),
    ],
    swiftLanguageModes: [.v6]
)
