import Foundation
import Yams

/// Reads a model's entities and fetch requests on a second thread while the composer is still reading
/// the rest of the file: composing the YAML and reading the model out of it were the two largest costs
/// of `validate`, one after the other; side by side they take about as long as composing alone.
///
/// The composer hands over each entry of `entities:` and of `fetchRequests:` as soon as it is complete;
/// a serial queue reads them in order, each section with a `ModelParser` of its own (its own reader,
/// diagnostics and node budget), and builds the entity graph's tables of the entities read. When the
/// main parser reaches a section, it takes what was read ahead if those are exactly the entries it
/// would read (for entities, read with the same composite type names), along with their diagnostics (in
/// the same order as reading them in turn would give) and the budget they spent; otherwise (a
/// `composites:` section after `entities:`, an aliased section) it reads the section itself and the work
/// done ahead is dropped. Either way the result is the same, which `SectionReadAheadTests` checks on
/// every model of the repository.
///
/// The entries handed over are exactly the section's when the root mapping's entry for the section
/// completes with a mapping of as many entries as were handed over: the composer hands over the
/// entries of a mapping composed in place as the entry's value (not through an alias), all of them
/// (its keys are scalars, or composing fails), in order, and a root key appears once (or composing
/// fails). So the main parser need not list the section's 200,000 entries again to compare them.
final class SectionReadAhead: YAMLComposer.Observer, @unchecked Sendable {
    /// Files smaller than this are read in turn: a thread hand-off would cost more than it saves.
    static let minimumByteCount = 64 * 1024

    private let source: SourceText
    private let queue = DispatchQueue(label: "modelgen.section-read-ahead")
    // Composing thread only:
    /// The composite type names as composed so far (a `composites:` mapping's keys).
    private var compositeNames: Set<String> = []
    /// The entries of each section handed over (or still to hand over).
    private var entities = Section(), fetchRequests = Section()
    /// False once something composed after the first entity could change how entities read.
    private var entitiesAreUsable = true
    // The queue's, until `finish()` or a section's results were waited for:
    /// The entities read, in order (those that could not be read left out, as the main parser does).
    private var entitiesRead: [Entity] = []
    /// The entity graph's tables of `entitiesRead`, filled as they are read.
    private var entityTables = EntityGraph.Tables()
    /// The fetch requests read, in order (the same).
    private var fetchRequestsRead: [FetchRequestTemplate] = []
    /// The sections whose entries the main parser took as read ahead (`entities`, `fetchRequests`).
    private(set) var sectionsUsed: Set<String> = []
    /// The graph of the entities read ahead, once the main parser took them.
    private(set) var entityGraph: EntityGraph?

    /// The composing thread's record of one section: the parser reading it ahead, made at its first
    /// entry, how many entries were handed over, where the first ends in the file, whether they are the
    /// section's whole, and the entries not yet handed to the queue.
    private struct Section {
        var worker: ModelParser?
        var count = 0
        var firstEntryEnd = 0
        var isWhole = false
        var pending: [NodeReader.Entry] = []

        /// Records that the root mapping's entry for this section completed with `value`.
        mutating func complete(with value: Node) {
            if case .mapping(let mapping) = value { isWhole = worker != nil && mapping.count == count }
        }

        /// Records the entry `name: value`, which ends at byte `end` (making the worker at the first);
        /// true when enough entries are pending to hand them over.
        mutating func add(_ name: Node.Scalar, _ value: Node, endingAt end: Int, worker makeWorker: () -> ModelParser) -> Bool {
            let worker = self.worker ?? makeWorker()
            self.worker = worker
            count += 1
            if count == 1 { firstEntryEnd = end }
            pending.append(NodeReader.Entry(key: name.string, value: value, keyLocation: worker.reader.location(name.mark)))
            return pending.count == SectionReadAhead.entriesPerHandOff
        }

        /// The pending entries as a job for the queue (nil when none), no longer pending.
        mutating func takeJob() -> Job? {
            guard let worker, !pending.isEmpty else { return nil }
            defer { pending.removeAll() }
            return Job(parser: worker, entries: pending)
        }
    }

    init(source: SourceText) {
        self.source = source
    }

    func composed(topLevelKey key: String, value: Node) {
        switch key {
        case "entities": entities.complete(with: value)
        case "fetchRequests": fetchRequests.complete(with: value)
        default: break
        }
        guard key == "composites" else { return }
        guard entities.worker == nil else {
            entitiesAreUsable = false   // composites after entities: the entities read ahead did not know them
            return
        }
        if case .mapping(let mapping) = value {
            compositeNames = Set(mapping.keys.compactMap { key in
                if case .scalar(let scalar) = key { return scalar.string }
                return nil
            })
        }
    }

    func composed(entryOf section: String, key: Node, value: Node, endOffset: Int) -> Bool {
        guard case .scalar(let name) = key else { return false }
        let isFull: Bool
        switch section {
        case "entities" where entitiesAreUsable:
            isFull = entities.add(name, value, endingAt: endOffset) { ModelParser(source: source, compositeNames: compositeNames) }
        case "fetchRequests":
            isFull = fetchRequests.add(name, value, endingAt: endOffset) { ModelParser(source: source) }
        default:
            return false
        }
        if isFull { handOver() }
        if section == "entities", isFull, entities.count == Self.entitiesMeasuredForEstimate {
            estimateEntityCount(fromEntriesEndingAt: endOffset)   // queued after those entities, so it knows their properties
        }
        return true
    }

    /// Entries are handed to the queue this many at a time (waking its thread for each cost 2% of `validate`).
    private static let entriesPerHandOff = 16

    /// The graph's tables are sized once this many entities are read (a multiple of `entriesPerHandOff`).
    private static let entitiesMeasuredForEstimate = 1024

    /// Sizes the graph's tables for as many entities as the rest of the file holds if they are as long
    /// as the first ones: grown by doubling, the tables of 200,000 entities were rehashed as they grew,
    /// half the work of filling them. Too low a guess, the tables grow as before; too high (short
    /// entities first, long ones after) costs memory, which is why the guess waits for a thousand
    /// entities: measured on the first 16, an 8.5 MB file of 16 one-attribute entities and 3,000 of
    /// 60 attributes peaked 19 MB higher.
    private func estimateEntityCount(fromEntriesEndingAt end: Int) {
        let bytesPerEntity = max(1, (end - entities.firstEntryEnd) / (Self.entitiesMeasuredForEstimate - 1))
        let estimate = Self.entitiesMeasuredForEstimate + (source.byteCount - end) / bytesPerEntity
        queue.async { self.entityTables.reserveCapacity(entities: estimate, propertiesPerEntity: self.propertiesPerEntityRead) }
    }

    /// The properties per entity among those read so far (at least one).
    private var propertiesPerEntityRead: Int {
        max(1, entityTables.propertyCount / max(1, entitiesRead.count))
    }

    private func handOver() {
        if let job = entities.takeJob() {
            queue.async {
                let start = self.entitiesRead.count
                job.read(ModelParser.entity, into: &self.entitiesRead)
                self.entitiesRead.withUnsafeBufferPointer { self.entityTables.add(UnsafeBufferPointer(rebasing: $0[start...])) }
            }
        }
        if let job = fetchRequests.takeJob() {
            queue.async { job.read(ModelParser.fetchRequest, into: &self.fetchRequestsRead) }
        }
    }

    /// Entries to read on the queue (the parser and the nodes are used by the queue alone until it is waited for).
    private struct Job: @unchecked Sendable {
        let parser: ModelParser
        let entries: [NodeReader.Entry]

        /// Reads each entry with `read` (a `ModelParser` method), appending what could be read to
        /// `results` one by one (appending a mapped array copied each value whole, then freed the copy).
        func read<Value>(_ read: (ModelParser) -> (NodeReader.Entry) -> Value?, into results: inout [Value]) {
            let reading = read(parser)
            for entry in entries {
                if let value = reading(entry) { results.append(value) }
            }
        }
    }

    /// The entities of `node` (the value of the root mapping's `entities:` entry) when they were read
    /// ahead, with the diagnostics and the node budget of reading them moved into `reader` (which also
    /// spends what listing the mapping's entries would); nil when the section must be read in turn.
    func entities(of node: Node, into reader: NodeReader) -> [Entity]? {
        guard entitiesAreUsable, take(entities, of: node, into: reader) else { return nil }
        sectionsUsed.insert("entities")
        entityGraph = EntityGraph(entitiesRead, tables: entityTables)
        return entitiesRead
    }

    /// The fetch requests of `node` (the value of the root mapping's `fetchRequests:` entry) when they
    /// were read ahead, as `entities(of:into:)`.
    func fetchRequests(of node: Node, into reader: NodeReader) -> [FetchRequestTemplate]? {
        guard take(fetchRequests, of: node, into: reader) else { return nil }
        sectionsUsed.insert("fetchRequests")
        return fetchRequestsRead
    }

    /// Waits for the queue; true, with what the section's reader found moved into `reader`, when the
    /// section's entries read ahead are the whole of `node` and `reader` can spend what listing them
    /// would (the mapping and each key; when it cannot, reading in turn reports where it ran out).
    private func take(_ section: Section, of node: Node, into reader: NodeReader) -> Bool {
        finish()
        guard let worker = section.worker, section.isWhole, case .mapping(let mapping) = node,
              reader.spend(units: 1 + mapping.count) else { return false }
        reader.absorb(worker.reader, at: node)
        return true
    }

    /// Waits until every entry composed has been read.
    func finish() {
        handOver()
        queue.sync {}
    }
}
