import ModelgenCore
import ModelgenRuntime
import Testing

/// Facts the generator writes into generated code and the runtime must share, checked against each other
/// (the test target links both; the generator itself does not link the runtime).
@Suite struct SharedFactsTests {
    /// Generated descriptions name the runtime's type as `.\(type.rawValue)` (`undefined` as
    /// `.transformable`): every stored type of the format is one of the runtime's, and the runtime has
    /// no type the format cannot declare.
    @Test func theFormatsStoredTypesAreTheRuntimes() {
        let stored = ModelgenCore.AttributeType.allCases.filter { $0 != .undefined && $0 != .composite }
        #expect(stored.map(\.rawValue) == ModelgenRuntime.AttributeType.allCases.map(\.rawValue))
        #expect(ModelgenRuntime.AttributeType(rawValue: "transformable") != nil)
    }
}
