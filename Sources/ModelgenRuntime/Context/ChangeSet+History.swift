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
///
/// A one-statement batch delete on PostgreSQL writes its deleted rows as they came back instead
/// (format 3, `DeletedRows`), so the statement builds no other text. Rows written before format 2
/// (the change set's `Codable` JSON) still read back: `init(history:)` tells the formats by their
/// first bytes. A runtime older than this one cannot read the newer formats.
extension ChangeSet {
    /// The first bytes of every history row in this format.
    private static let historyPrefix = Array("{\"format\":2,".utf8)
    /// The first bytes of a batch delete's rows (`DeletedRows`).
    private static let deletedRowsPrefix = Array("{\"format\":3,".utf8)

    /// The change set as a history row (see above), written directly (no encoder).
    package func historyJSON() -> Data {
        var writer = HistoryWriter()
        writer.bytes.reserveCapacity(64 + (deleted.count + inserted.count) / 64 * 32 + updated.count * 48)
        writer.bytes.append(contentsOf: Self.historyPrefix)
        writer.append("\"deleted\":[")
        writer.appendRuns(deleted.map { (writer.number(ofEntity: $0.entityName), $0.key, -1) })
        writer.append("],\"inserted\":[")
        writer.appendRuns(inserted.map { (writer.number(ofEntity: $0.entityName), $0.key, -1) })
        writer.append("],\"updated\":[")
        // In entity and key order: sorted as numbers (each entity's rank among the names, the key).
        var records = updated.map { (entity: writer.number(ofEntity: $0.key.entityName), key: $0.key.key, names: writer.number(ofNames: $0.value)) }
        let rank = writer.entityRanks()
        records.sort { (rank[$0.entity], $0.key) < (rank[$1.entity], $1.key) }
        writer.appendRuns(records)
        writer.append("]}")
        return Data(writer.bytes)
    }

    /// The change set of a history row: this format, a batch delete's rows (format 3), or the change
    /// set's `Codable` JSON of earlier rows.
    package init(history data: Data) throws {
        if data.starts(with: Self.deletedRowsPrefix) {
            self = try JSONDecoder().decode(DeletedRows.self, from: data).changeSet()
            return
        }
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

/// Writes a history row's bytes (`ChangeSet.historyJSON()`). Records are written from numbers: each
/// entity name and each list of property names is numbered once and its JSON text kept in `texts`, so
/// writing a run copies bytes and digits into room made for the whole list (no retain per run).
private struct HistoryWriter {
    var bytes: [UInt8] = []
    /// The entity names and the lists of property names numbered so far.
    private var entities: [String] = [], nameLists: [Set<String>] = []
    /// The JSON text of each numbered entity name (a string) and names list (an array's contents), one
    /// after the other in `texts`.
    private var texts: [UInt8] = [], entityText: [Range<Int>] = [], nameListText: [Range<Int>] = []

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// The number of an entity name (the last one numbered is checked first).
    mutating func number(ofEntity name: String) -> Int {
        if let last = entities.indices.last, entities[last] == name { return last }
        if let index = entities.firstIndex(of: name) { return index }
        entities.append(name)
        entityText.append(appendText([name]))
        return entities.count - 1
    }

    /// The number of a list of property names (the last one numbered is checked first).
    mutating func number(ofNames names: Set<String>) -> Int {
        if let last = nameLists.indices.last, nameLists[last] == names { return last }
        if let index = nameLists.firstIndex(of: names) { return index }
        nameLists.append(names)
        nameListText.append(appendText(names.sorted()))
        return nameLists.count - 1
    }

    /// Each numbered entity's position in name order.
    func entityRanks() -> [Int] {
        var rank = Array(repeating: 0, count: entities.count)
        for (position, entity) in entities.indices.sorted(by: { entities[$0] < entities[$1] }).enumerated() { rank[entity] = position }
        return rank
    }

    /// Adds names to `texts` as JSON strings separated by commas (quotes, backslashes and control
    /// characters escaped); where they are.
    private mutating func appendText(_ names: [String]) -> Range<Int> {
        let start = texts.count
        for (position, name) in names.enumerated() {
            if position > 0 { texts.append(UInt8(ascii: ",")) }
            texts.append(UInt8(ascii: "\""))
            for byte in name.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    texts += [UInt8(ascii: "\\"), byte]
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    texts += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]]
                default:
                    texts.append(byte)
                }
            }
            texts.append(UInt8(ascii: "\""))
        }
        return start..<texts.count
    }

    /// Runs of consecutive keys of one entity, in the order of `records` (numbered entity, key,
    /// numbered names or -1 for none): `[entity, first key, count]`, or with names
    /// `[entity, first key, count, [names]]`, a run also sharing its names.
    mutating func appendRuns(_ records: [(entity: Int, key: Int64, names: Int)]) {
        var runs: [(entity: Int, key: Int64, names: Int, count: Int64)] = []
        for next in records {
            if let run = runs.last, run.entity == next.entity, run.names == next.names,
               case let (end, overflow) = run.key.addingReportingOverflow(run.count), !overflow, end == next.key {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((next.entity, next.key, next.names, 1))
            }
        }
        guard !runs.isEmpty else { return }
        // At most: `,[` text `,` 20 digits `,` 20 digits `,[` text `]]` a run.
        let longest = (entityText.map(\.count).max() ?? 0) + (nameListText.map(\.count).max() ?? 0)
        let start = bytes.count, room = runs.count * (longest + 48)
        bytes.append(contentsOf: repeatElement(0, count: room))
        let end = bytes.withUnsafeMutableBufferPointer { out in
            texts.withUnsafeBufferPointer { texts in
                var at = start
                func put(_ byte: UInt8) { out[at] = byte; at += 1 }
                func put(_ range: Range<Int>) {
                    for index in range { out[at] = texts[index]; at += 1 }
                }
                func put(_ number: Int64) {
                    withDecimalDigits(of: number) { for digit in $0 { put(digit) } }
                }
                for (position, run) in runs.enumerated() {
                    if position > 0 { put(UInt8(ascii: ",")) }
                    put(UInt8(ascii: "["))
                    put(entityText[run.entity])
                    put(UInt8(ascii: ","))
                    put(run.key)
                    put(UInt8(ascii: ","))
                    put(run.count)
                    if run.names >= 0 {
                        put(UInt8(ascii: ","))
                        put(UInt8(ascii: "["))
                        put(nameListText[run.names])
                        put(UInt8(ascii: "]"))
                    }
                    put(UInt8(ascii: "]"))
                }
                return at
            }
        }
        bytes.removeLast(start + room - end)
    }
}
