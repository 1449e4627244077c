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
/// `Codable` form would write megabytes.
/// Rows written before this format (the change set's `Codable` JSON) still read back: `init(history:)`
/// tells them by their first bytes. A runtime older than this one cannot read the new rows.
extension ChangeSet {
    /// The first bytes of every history row in this format.
    private static let historyPrefix = Array("{\"format\":2,".utf8)

    /// The change set as a history row (see above), written directly (no encoder).
    package func historyJSON() -> Data {
        var writer = HistoryWriter()
        writer.bytes.reserveCapacity(64 + (deleted.count + inserted.count) / 64 * 32 + updated.count * 48)
        writer.bytes.append(contentsOf: Self.historyPrefix)
        writer.append("\"deleted\":[")
        writer.appendRuns(deleted)
        writer.append("],\"inserted\":[")
        writer.appendRuns(inserted)
        writer.append("],\"updated\":[")
        let sortedUpdates = updated.map { (id: $0.key, names: $0.value.count == 1 ? Array($0.value) : $0.value.sorted()) }
            .sorted { (a: (id: ObjectID, names: [String]), b: (id: ObjectID, names: [String])) -> Bool in
                a.id.entityName == b.id.entityName ? a.id.key < b.id.key : a.id.entityName < b.id.entityName
            }
        writer.appendRuns(sortedUpdates.lazy.map(\.id), names: sortedUpdates.map(\.names))
        writer.append("]}")
        return Data(writer.bytes)
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

/// Writes a history row's bytes (`ChangeSet.historyJSON()`). A struct with mutating methods, not
/// closures around a captured array, whose every append would pay a dynamic exclusivity check.
private struct HistoryWriter {
    var bytes: [UInt8] = []

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ number: Int64) {
        withDecimalDigits(of: number) { bytes.append(contentsOf: $0) }
    }

    /// An entity or property name as a JSON string (quotes, backslashes and control characters escaped).
    mutating func appendString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                let hex: StaticString = "0123456789abcdef"
                append("\\u00")
                bytes.append(hex.utf8Start[Int(byte >> 4)])
                bytes.append(hex.utf8Start[Int(byte & 15)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Runs of consecutive keys of one entity, in the order of `ids`: `[entity, first key, count]`, or
    /// with `names` (one list per ID) `[entity, first key, count, [names]]`, a run also sharing its names.
    mutating func appendRuns<S: Sequence<ObjectID>>(_ ids: S, names: [[String]]? = nil) {
        var first = true
        var open: (id: ObjectID, index: Int, count: Int64)?
        for (index, next) in ids.enumerated() {
            if let run = open, case let (end, overflow) = run.id.key.addingReportingOverflow(run.count), !overflow, end == next.key,
               run.id.entityName == next.entityName, names.map({ $0[run.index] == $0[index] }) ?? true {
                open!.count += 1
            } else {
                if let run = open { appendRun(run, names: names, first: &first) }
                open = (next, index, 1)
            }
        }
        if let run = open { appendRun(run, names: names, first: &first) }
    }

    private mutating func appendRun(_ run: (id: ObjectID, index: Int, count: Int64), names: [[String]]?, first: inout Bool) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        first = false
        bytes.append(UInt8(ascii: "["))
        appendString(run.id.entityName)
        bytes.append(UInt8(ascii: ","))
        append(run.id.key)
        bytes.append(UInt8(ascii: ","))
        append(run.count)
        if let names {
            append(",[")
            for (position, name) in names[run.index].enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                appendString(name)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
