// The propagation section of `make bench`: how long a background save takes to reach an observer of
// the main context, beside its floor (a bare hop from a background task to the main actor), in one run.
import Foundation
import ModelgenRuntime
import Observation
import Synchronization

/// When an observation fired (nanoseconds of DispatchTime), set from a @Sendable onChange.
final class FireTime: Sendable {
    let nanoseconds = Atomic<UInt64>(0)
}

/// Percentile of sorted samples.
func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }

@MainActor func runPropagationBench() async throws {
    let rounds = 300
    let propagationContainer = try ManagedContainer(model: model, store: .inMemory)
    let main = propagationContainer.mainContext
    let item = makeItems(main)[0]
    try main.save()
    let id = item.objectID
    var latencies: [Double] = [], floors: [Double] = []
    for round in 0..<rounds {
        // The floor: a background task scheduling work on the main actor.
        let hop = FireTime()
        let hopStart = await Task.detached { () -> UInt64 in
            let start = DispatchTime.now().uptimeNanoseconds
            Task { @MainActor in hop.nanoseconds.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed) }
            return start
        }.value
        while hop.nanoseconds.load(ordering: .relaxed) == 0 { await Task.yield() }
        floors.append(Double(hop.nanoseconds.load(ordering: .relaxed) - hopStart) / 1e3)

        // A background save of one property, until the main context's observer of it fires.
        let fired = FireTime()
        withObservationTracking { _ = item.count } onChange: {
            fired.nanoseconds.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        }
        let saved = try await propagationContainer.performBackgroundTask { context -> UInt64 in
            let object = try context.existingObject(with: id) as! Item
            object.count = Int64(round + 2)
            try context.save()
            return DispatchTime.now().uptimeNanoseconds
        }
        while fired.nanoseconds.load(ordering: .relaxed) == 0 { await Task.yield() }
        latencies.append(Double(fired.nanoseconds.load(ordering: .relaxed)) / 1e3 - Double(saved) / 1e3)
    }
    latencies.sort()
    floors.sort()
    print("propagation, in-memory store, \(rounds) saves: background save returned -> main context's observer told (microseconds)")
    print(String(format: "  background save to main-context observer   median %7.1f   p99 %7.1f", percentile(latencies, 0.5), percentile(latencies, 0.99)))
    print(String(format: "  floor: background task to main actor hop    median %7.1f   p99 %7.1f", percentile(floors, 0.5), percentile(floors, 0.99)))
}
