import Foundation
@testable import ModelgenCore
import Testing

/// A generated class says it has no `validateValue(_:forKey:)` and no `awakeFromFetch()` of its own
/// (`_mayValidateValues` and `_awakesFromFetch` false, so saves and fetches skip those hooks) only
/// when nothing can give it one: a final class-mode class whose superclasses are all generated (an
/// extension cannot override a method, and nobody can subclass it).
@Suite struct ValueValidationMarkerTests {
    static let model = """
        model: Marks
        entities:
          Plain:
            attributes: { name: string }
          Parent:
            attributes: { name: string }
          Child:
            parent: Parent
            attributes: { age: int16 }
          Handwritten:
            codegen: extension
            attributes: { name: string }
          UnderHandwritten:
            parent: Handwritten
            attributes: { size: int32 }
          Manual:
            codegen: none
            attributes: { name: string }
          UnderManual:
            parent: Manual
            attributes: { size: int32 }
        """

    @Test func onlyFinalClassesWithGeneratedSuperclassesSkipTheHook() throws {
        let check = ModelCheck.run(data: Data(Self.model.utf8), path: "Marks.model.yaml")
        let validated = try #require(check.validated, "\(check.diagnostics.map(\.message))")
        let files = try ModelEmitter().generate(validated, options: GenerationOptions())
        func marked(_ file: String) throws -> Bool {
            let contents = try #require(files.first { $0.name == file }, "no \(file)").contents
            let validation = contents.contains("override class var _mayValidateValues: Bool { false }")
            #expect(validation == contents.contains("override class var _awakesFromFetch: Bool { false }"), "\(file): both markers or neither")
            return validation
        }
        #expect(try marked("Plain.swift"))
        #expect(try marked("Child.swift"))
        #expect(try !marked("Parent.swift"), "a class with subentities can be subclassed")
        #expect(try !marked("Handwritten+Generated.swift"), "the user writes the class")
        #expect(try !marked("UnderHandwritten.swift"), "its superclass is the user's")
        #expect(try !marked("UnderManual.swift"), "its superclass is the user's")
    }
}
