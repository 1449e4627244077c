import Foundation
import Testing
@testable import ModelgenCore

/// The generator's knowledge of the runtime's type names comes from the runtime's sources, and every
/// one of them is refused as an entity or class name (generated code, which imports the runtime, would
/// not compile with a model type of that name).
@Suite struct RuntimeNamesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Adding, renaming or removing a public runtime type without `make runtime-names` fails here.
    @Test func theRuntimeTypeListIsReadFromTheRuntime() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.root.appendingPathComponent("scripts/runtime-type-names.py").path, "--check"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(message)")
        #expect(RuntimeTypeNames.all.isSuperset(of: ["ManagedObject", "SQLiteStore", "ValueCodec", "DeleteRule", "ModelgenRuntimeAPIVersionCheck"]))
        #expect(!SwiftNames.reservedTypeNames.contains("SaveError"), "no such runtime type")
        #expect(RuntimeMemberNames.all.isSuperset(of: ["objectID", "managedObjectContext", "entity", "isFault", "hasChanges"]))
    }

    /// A property named after any public property of `ManagedObject` (which generated code would
    /// redeclare) is refused with the member named.
    @Test(arguments: RuntimeMemberNames.all.sorted())
    func aPropertyNamedAfterAManagedObjectPropertyIsRefused(_ name: String) {
        let yaml = "model: M\nentities:\n  Item:\n    attributes: { \(name): string }\n"
        let diagnostics = check(yaml).diagnostics.filter { $0.severity == .error }
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.first?.message.contains("collides with the runtime's own member '\(name)' of ManagedObject") == true, "\(diagnostics)")
    }

    @Test(arguments: RuntimeTypeNames.all.sorted())
    func anEntityOrClassNamedAfterARuntimeTypeIsRefused(_ name: String) {
        for yaml in ["model: M\nentities:\n  \(name):\n    attributes: { a: string }\n",
                     "model: M\nentities:\n  Item:\n    class: \(name)\n    attributes: { a: string }\n"] {
            let diagnostics = check(yaml).diagnostics.filter { $0.severity == .error }
            #expect(diagnostics.count == 1, "\(diagnostics)")
            #expect(diagnostics.first?.message.contains("'\(name)' collides with a type of the runtime") == true, "\(diagnostics)")
        }
    }
}
