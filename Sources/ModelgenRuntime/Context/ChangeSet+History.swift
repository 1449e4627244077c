import Foundation

/// How a change set is kept in a store's history row (`modelgen.history."changes"`, SQLite and
/// PostgreSQL alike): JSON whose record lists are runs of consecutive keys of one entity.
///
///     {"format":2,"deleted":[["Loan",1,500]],"inserted":[["Book",3,1],["Item",1,100000]],
///      "updated":[["Member",2,1,["loans","name"]]]}
///
/// - `inserted` and `deleted`: `[entity, first key, count]` per run, in the change set's order.
/// - `updated`: `[entity, first key, count, [property names]]` per run of records with the same
///   changed properties, in entity and key order.
///
/// A save of 100,000 new records writes one run (a few dozen bytes) where the change set's own
/// `Codable` form writes 3.5 MB: that form cost a bulk insert into SQLite 11–15 ms of its 155.
/// Rows written before this format (the change set's `Codable` JSON) still read back: `init(history:)`
/// tells them by their first bytes. A runtime older than this one cannot read the new rows.
extension ChangeSet {
    /// The first bytes of every history row in this format.
    private static let historyPrefix = Array("{\"format\":2,".utf8)

    /// The change set as a history row (see above), written directly (no encoder).
    package func historyJSON() -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + (deleted.count + inserted.count) / 64 * 32 + updated.count * 48)
        func append(_ literal: StaticString) {
            literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }
        func append(_ number: Int64) {
            withDecimalDigits(of: number) { bytes.append(contentsOf: $0) }
        }
        // Names are few (entity and property names): each is encoded by JSONEncoder once.
        var encoded: [String: [UInt8]] = [:]
        var last: (name: String, json: [UInt8])?
        func appendString(_ string: String) {
            if let last, last.name == string { return bytes.append(contentsOf: last.json) }
            let json = encoded[string] ?? (try? JSONEncoder().encode(string)).map(Array.init) ?? Array("\"\"".utf8)
            encoded[string] = json
            last = (string, json)
            bytes.append(contentsOf: json)
        }
        /// Runs of `ids` in their order, each closed by `close` (which appends what follows the count).
        func appendRuns<S: Sequence>(_ ids: S, sameRun: (S.Element, S.Element) -> Bool = { _, _ in true },
                                     id: (S.Element) -> ObjectID, close: (S.Element) -> Void) {
            var first = true
            var open: (element: S.Element, start: Int64, count: Int64)?
            func flush() {
                guard let run = open else { return }
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                bytes.append(UInt8(ascii: "["))
                appendString(id(run.element).entityName)
                bytes.append(UInt8(ascii: ","))
                append(run.start)
                bytes.append(UInt8(ascii: ","))
                append(run.count)
                close(run.element)
                bytes.append(UInt8(ascii: "]"))
            }
            for element in ids {
                let next = id(element)
                if let run = open, case let (end, overflow) = run.start.addingReportingOverflow(run.count), !overflow, end == next.key,
                   id(run.element).entityName == next.entityName, sameRun(run.element, element) {
                    open?.count += 1
                } else {
                    flush()
                    open = (element, next.key, 1)
                }
            }
            flush()
        }
        bytes.append(contentsOf: Self.historyPrefix)
        append("\"deleted\":[")
        appendRuns(deleted, id: { $0 }, close: { _ in })
        append("],\"inserted\":[")
        appendRuns(inserted, id: { $0 }, close: { _ in })
        append("],\"updated\":[")
        let sortedUpdates = updated.map { (id: $0.key, names: $0.value.sorted()) }
            .sorted { ($0.id.entityName, $0.id.key) < ($1.id.entityName, $1.id.key) }
        appendRuns(sortedUpdates, sameRun: { $0.names == $1.names }, id: { $0.id }) { update in
            append(",[")
            for (position, name) in update.names.enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                appendString(name)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        append("]}")
        return Data(bytes)
    }

    /// The change set of a history row: this format, or the change set's `Codable` JSON of earlier rows.
    package init(history data: Data) throws {
        guard data.starts(with: Self.historyPrefix) else {
            self = try JSONDecoder().decode(ChangeSet.self, from: data)
            return
        }
        let record = try JSONDecoder().decode(HistoryRecord.self, from: data)
        self.init()
        deleted = try record.deleted.flatMap { try $0.ids() }
        inserted = try record.inserted.flatMap { try $0.ids() }
        for run in record.updated {
            let names = Set(run.names)
            for id in try run.run.ids() { updated[id] = names }
        }
    }
}

/// A history row in the format above, as `JSONDecoder` reads it.
private struct HistoryRecord: Decodable {
    /// `[entity, first key, count]`.
    struct Run: Decodable {
        let entity: String
        let start: Int64
        let count: Int64

        init(from decoder: any Decoder) throws {
            var fields = try decoder.unkeyedContainer()
            try self.init(&fields)
        }

        /// The run's three fields, from an array that may go on (an updated run's names follow).
        init(_ fields: inout any UnkeyedDecodingContainer) throws {
            entity = try fields.decode(String.self)
            start = try fields.decode(Int64.self)
            count = try fields.decode(Int64.self)
        }

        func ids() throws -> [ObjectID] {
            guard count > 0, !start.addingReportingOverflow(count - 1).overflow else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "history run \(entity) \(start)+\(count) is out of range"))
            }
            return (0..<count).map { ObjectID(entityName: entity, key: start + $0) }
        }
    }

    /// `[entity, first key, count, [property names]]`.
    struct UpdatedRun: Decodable {
        let run: Run
        let names: [String]

        init(from decoder: any Decoder) throws {
            var fields = try decoder.unkeyedContainer()
            run = try Run(&fields)
            names = try fields.decode([String].self)
        }
    }

    // (`"format"` is not read: the row's first bytes said which format it is.)
    let deleted: [Run]
    let inserted: [Run]
    let updated: [UpdatedRun]
}
