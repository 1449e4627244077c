import Foundation

/// A deterministic random number generator for the randomized tests (a failure repeats
/// with the same seed): Knuth's MMIX linear congruential step, the high half of the state per value.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// A generator whose values follow from `seed` alone.
    public init(seed: UInt64) { state = seed }

    /// The seed of a randomized test: `MODELGEN_TEST_SEED` when set (to repeat a failure), else
    /// `fallback`. A test names it in its failure messages.
    public static func seed(or fallback: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment["MODELGEN_TEST_SEED"].flatMap { UInt64($0) } ?? fallback
    }

    /// The next value.
    public mutating func next() -> UInt64 {
        let high = step() >> 32
        return high << 32 | step() >> 32
    }

    private mutating func step() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}
