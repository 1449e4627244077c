import Foundation
import Observation
import Testing
@testable import ModelgenRuntime

/// The parts of observation generated code cannot show: when an object gets its registrar.
@Suite struct ObservationProbeTests {
    /// Fails if a toolchain stops hashing the key paths it records (the probe would then miss tracking).
    @Test func probeSeesTracking() {
        #expect(!ObservationProbe.isTracking())
        var inside = false
        withObservationTracking { inside = ObservationProbe.isTracking() } onChange: {}
        #expect(inside)
        #expect(!ObservationProbe.isTracking())
    }

    /// The probe an object's read uses (its entity's registrar and key path) agrees, nested tracking too.
    @Test func theEntitysProbeSeesTracking() throws {
        let container = try ManagedContainer(model: BlogModel.model, store: .inMemory)
        let tag = Tag(context: container.newContext())
        #expect(!tag.entity.isTracking(reading: tag))
        var inside = false, nested = false, afterNested = false
        withObservationTracking {
            inside = tag.entity.isTracking(reading: tag)
            withObservationTracking { nested = tag.entity.isTracking(reading: tag) } onChange: {}
            afterNested = tag.entity.isTracking(reading: tag)
        } onChange: {}
        #expect(inside && nested && afterNested)
        #expect(!tag.entity.isTracking(reading: tag))
    }

    @Test func anObjectGetsItsRegistrarOnlyWhenReadUnderTracking() throws {
        let container = try ManagedContainer(model: BlogModel.model, store: .inMemory)
        let context = container.newContext()
        let tag = Tag(context: context)
        tag.name = "swift"
        _ = tag.name
        #expect(tag._observation == nil)                     // read and written, never observed
        withObservationTracking { _ = tag.name } onChange: {}
        #expect(tag._observation != nil)
        let quiet = container.newContext(observation: .unobserved)
        let other = Tag(context: quiet)
        withObservationTracking { _ = other.name } onChange: {}
        #expect(other._observation == nil)                      // unobserved context: reads register nothing
        #expect(MemoryLayout<ObjectObservation?>.size == 8)
    }
}
