import Foundation
import Yams

/// Reads a model's entities on a second thread while the composer is still reading the rest of the
/// file: composing the YAML and reading the entities out of it were the two largest costs of
/// `validate`, one after the other; side by side they take about as long as composing alone.
///
/// The composer hands over each entry of `entities:` as soon as it is complete; a serial queue reads
/// them in order with a `ModelParser` of its own (its own reader, diagnostics and node budget).
/// When the main parser reaches `entities:`, it takes the entities read ahead if they are exactly
/// those it would read (the same keys in the same order, read with the same composite type names),
/// along with their diagnostics (in the same order as reading them in turn would give) and the
/// budget they spent; otherwise (a `composites:` section after `entities:`, an aliased `entities:`)
/// it reads them itself and the work done ahead is dropped. Either way the result is the same, which
/// `EntityReadAheadTests` checks on every model of the repository.
final class EntityReadAhead: YAMLComposer.Observer, @unchecked Sendable {
    /// Files smaller than this are read in turn: a thread hand-off would cost more than it saves.
    static let minimumByteCount = 64 * 1024

    private let source: SourceText
    private let queue = DispatchQueue(label: "modelgen.entity-read-ahead")
    // Composing thread only:
    /// The composite type names as composed so far (a `composites:` mapping's keys).
    private var compositeNames: Set<String> = []
    /// The parser reading ahead, made at the first entity (with the composite names known then).
    private var worker: ModelParser?
    /// The names of the entities handed over, in order.
    private var keys: [String] = []
    /// False once something composed after the first entity could change how entities read.
    private var isUsable = true
    // The queue's, until `finish()` or `entities(for:into:at:)` waited for it:
    /// The entities read, in order (those that could not be read left out, as the main parser does).
    private var entities: [Entity] = []
    /// True once the main parser took the entities read ahead.
    private(set) var wasUsed = false

    init(source: SourceText) {
        self.source = source
    }

    func composed(topLevelKey key: String, value: Node) {
        guard key == "composites" else { return }
        guard worker == nil else {
            isUsable = false   // composites after entities: the entities read ahead did not know them
            return
        }
        if case .mapping(let mapping) = value {
            compositeNames = Set(mapping.keys.compactMap { key in
                if case .scalar(let scalar) = key { return scalar.string }
                return nil
            })
        }
    }

    func composed(entryOf section: String, key: Node, value: Node) -> Bool {
        guard section == "entities", isUsable, case .scalar(let name) = key else { return false }
        let worker = self.worker ?? ModelParser(source: source, compositeNames: compositeNames)
        self.worker = worker
        let entry = NodeReader.Entry(key: name.string, value: value, keyLocation: worker.reader.location(name.mark))
        keys.append(entry.key)
        pending.append(entry)
        if pending.count == Self.entitiesPerHandOff { handOver() }
        return true
    }

    /// Entities are handed to the queue this many at a time (waking its thread for each cost 2% of `validate`).
    private static let entitiesPerHandOff = 16
    /// The entities composed but not yet handed to the queue.
    private var pending: [NodeReader.Entry] = []

    private func handOver() {
        guard let worker, !pending.isEmpty else { return }
        let job = Job(parser: worker, entries: pending)
        pending.removeAll()
        queue.async { self.entities += job.entries.compactMap { job.parser.entity($0) } }
    }

    /// Entities to read on the queue (the parser and the nodes are used by the queue alone until it is waited for).
    private struct Job: @unchecked Sendable {
        let parser: ModelParser
        let entries: [NodeReader.Entry]
    }

    /// The entities of `items` (the `entities:` mapping's entries as the main parser reads them) when
    /// they were read ahead, with the diagnostics and the node budget of reading them moved into
    /// `reader` (`node`: where a budget the two readers overspent together is reported); nil when
    /// `items` must be read in turn.
    func entities(for items: [NodeReader.Entry], into reader: NodeReader, at node: Node) -> [Entity]? {
        finish()
        guard isUsable, let worker, keys.count == items.count, zip(keys, items).allSatisfy({ $0 == $1.key }) else { return nil }
        reader.absorb(worker.reader, at: node)
        wasUsed = true
        return entities
    }

    /// Waits until every entity composed has been read.
    func finish() {
        handOver()
        queue.sync {}
    }
}
