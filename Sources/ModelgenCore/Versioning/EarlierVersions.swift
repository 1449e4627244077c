/// A version folder's versions before its current one, as generation needs them: the kept versions
/// (from the oldest a store may still be at, `oldestVersion`), validated, and the hashes of the
/// versions before those (retired: stores of them are refused with a clear error).
public struct EarlierVersions: Sendable {
    /// The number of the oldest kept version (1 unless an oldest version is set).
    public var firstNumber: Int
    /// The kept versions before the current one, validated, oldest first.
    public var models: [ValidatedModel]
    /// The version hashes of the retired versions, oldest first.
    public var retiredVersionHashes: [String]

    /// Versions `firstNumber` onwards (`models`) after the retired ones' hashes.
    public init(firstNumber: Int = 1, models: [ValidatedModel], retiredVersionHashes: [String] = []) {
        self.firstNumber = firstNumber
        self.models = models
        self.retiredVersionHashes = retiredVersionHashes
    }
}
