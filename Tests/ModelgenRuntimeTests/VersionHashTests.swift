import ModelgenRuntime
import Testing

/// The runtime tests' generated models (undefined transient attributes, composites of every kind): the
/// version hash `modelgen` wrote into them is the runtime's for the same model.
@Suite struct GeneratedVersionHashTests {
    @Test func theGeneratorsVersionHashIsTheRuntimes() {
        #expect(BlogModel.versionHash == BlogModel.model.versionHash)
        #expect(ShopModel.versionHash == ShopModel.model.versionHash)
    }
}
