import Foundation
import Yams

/// Reads a model's entities and fetch requests on a second thread while the composer is still reading
/// the rest of the file: composing the YAML and reading the model out of it were the two largest costs
/// of `validate`, one after the other; side by side they take about as long as composing alone.
///
/// The composer hands over each entry of `entities:` and of `fetchRequests:` as soon as it is complete;
/// a serial queue reads them in order, each section with a `ModelParser` of its own (its own reader,
/// diagnostics and node budget). When the main parser reaches a section, it takes what was read ahead
/// if those are exactly the entries it would read (the same keys in the same order; for entities, read
/// with the same composite type names), along with their diagnostics (in the same order as reading them
/// in turn would give) and the budget they spent; otherwise (a `composites:` section after `entities:`,
/// an aliased section) it reads the section itself and the work done ahead is dropped. Either way the
/// result is the same, which `SectionReadAheadTests` checks on every model of the repository.
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
    /// The fetch requests read, in order (the same).
    private var fetchRequestsRead: [FetchRequestTemplate] = []
    /// The sections whose entries the main parser took as read ahead (`entities`, `fetchRequests`).
    private(set) var sectionsUsed: Set<String> = []

    /// The composing thread's record of one section: the parser reading it ahead, made at its first
    /// entry, the keys handed over, in order, and the entries not yet handed to the queue.
    private struct Section {
        var worker: ModelParser?
        var keys: [String] = []
        var pending: [NodeReader.Entry] = []

        /// Records the entry `name: value` (making the worker at the first); true when enough entries
        /// are pending to hand them over.
        mutating func add(_ name: Node.Scalar, _ value: Node, worker makeWorker: () -> ModelParser) -> Bool {
            let worker = self.worker ?? makeWorker()
            self.worker = worker
            keys.append(name.string)
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

    func composed(entryOf section: String, key: Node, value: Node) -> Bool {
        guard case .scalar(let name) = key else { return false }
        let isFull: Bool
        switch section {
        case "entities" where entitiesAreUsable:
            isFull = entities.add(name, value) { ModelParser(source: source, compositeNames: compositeNames) }
        case "fetchRequests":
            isFull = fetchRequests.add(name, value) { ModelParser(source: source) }
        default:
            return false
        }
        if isFull { handOver() }
        return true
    }

    /// Entries are handed to the queue this many at a time (waking its thread for each cost 2% of `validate`).
    private static let entriesPerHandOff = 16

    private func handOver() {
        if let job = entities.takeJob() {
            queue.async { self.entitiesRead += job.entries.compactMap { job.parser.entity($0) } }
        }
        if let job = fetchRequests.takeJob() {
            queue.async { self.fetchRequestsRead += job.entries.compactMap { job.parser.fetchRequest($0) } }
        }
    }

    /// Entries to read on the queue (the parser and the nodes are used by the queue alone until it is waited for).
    private struct Job: @unchecked Sendable {
        let parser: ModelParser
        let entries: [NodeReader.Entry]
    }

    /// The entities of `items` (the `entities:` mapping's entries as the main parser reads them) when
    /// they were read ahead, with the diagnostics and the node budget of reading them moved into
    /// `reader` (`node`: where a budget the two readers overspent together is reported); nil when
    /// `items` must be read in turn.
    func entities(for items: [NodeReader.Entry], into reader: NodeReader, at node: Node) -> [Entity]? {
        guard entitiesAreUsable, take(entities, for: items, into: reader, at: node) else { return nil }
        sectionsUsed.insert("entities")
        return entitiesRead
    }

    /// The fetch requests of `items` (the `fetchRequests:` mapping's entries) when they were read
    /// ahead, as `entities(for:into:at:)`.
    func fetchRequests(for items: [NodeReader.Entry], into reader: NodeReader, at node: Node) -> [FetchRequestTemplate]? {
        guard take(fetchRequests, for: items, into: reader, at: node) else { return nil }
        sectionsUsed.insert("fetchRequests")
        return fetchRequestsRead
    }

    /// Waits for the queue; true, with what the section's reader found moved into `reader`, when the
    /// section's entries read ahead are `items`.
    private func take(_ section: Section, for items: [NodeReader.Entry], into reader: NodeReader, at node: Node) -> Bool {
        finish()
        guard let worker = section.worker, section.keys.count == items.count,
              zip(section.keys, items).allSatisfy({ $0 == $1.key }) else { return false }
        reader.absorb(worker.reader, at: node)
        return true
    }

    /// Waits until every entry composed has been read.
    func finish() {
        handOver()
        queue.sync {}
    }
}
