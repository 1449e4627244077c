/// A deterministic random number generator for the runtime's randomized tests (a failure repeats
/// with the same seed): Knuth's MMIX linear congruential step, the high half of the state per value.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        let high = step() >> 32
        return high << 32 | step() >> 32
    }

    private mutating func step() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}
