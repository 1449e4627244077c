#if PostgreSQL
import Foundation
import ModelgenRuntime
import PostgresNIO

/// PostgreSQL's driver: runs the shared statements (`SQLReads`, `SQLSave`) on one connection,
/// pipelined (a statement whose rows are not needed is sent without waiting; its error comes at the
/// next query or flush), and writes records' rows the fastest way for their number: `COPY` for many
/// new ones, one `INSERT`/`UPDATE … FROM unnest(…)` over arrays for several, a statement a row otherwise.
final class PostgreSQLDriver: SQLSaveDriver {
    let connection: PostgresConnection
    let store: PostgreSQLStore
    private var layout: SQLLayout { store.layout }
    /// Statements sent and not yet awaited, in order.
    private var pending: [(future: EventLoopFuture<PostgresQueryResult>, sql: String)] = []
    /// The COPY text of new records, but for their keys, made while the keys were drawn (by entity).
    private var copyColumnsByEntity: [String: (text: ByteBuffer, ends: [Int])] = [:]

    init(_ connection: PostgresConnection, store: PostgreSQLStore) {
        self.connection = connection
        self.store = store
    }

    var dialect: any SQLDialect { PostgreSQLDialect() }

    func unknownEntityCode(_ code: Int64) -> any Error {
        PostgreSQLStoreError.incompatibleModel(schema: store.configuration.schema, problems: ["a record has entity code \(code), which the model does not have"])
    }

    func storeRow(_ row: PostgresResultRow, from offset: Int) throws -> StoreRow {
        let cells = row.cells
        let code = try row.int64(offset + 1)
        guard let name = layout.namesByCode[code], let entity = layout.entities[name] else { throw unknownEntityCode(code) }
        var values = [StoreValue](repeating: .null, count: entity.storage.count)
        for (slot, storage) in entity.storage.enumerated() {
            let column = offset + Int(entity.selectIndex[slot])
            switch storage {
            case .attribute(_, let type, _):
                values[slot] = try PostgreSQLSQL.value(cells[column], type: type)
            case .toOne:
                let key = cells[column], target = cells[column + 1]
                if key.bytes != nil, target.bytes != nil {
                    values[slot] = .reference(ObjectID(entityName: layout.namesByCode[try PostgresResultRow.int64(target)] ?? "", key: try PostgresResultRow.int64(key)))
                } else {
                    values[slot] = .reference(nil)
                }
            case .none, .toManyByInverse, .toManyByJoin:
                break
            }
        }
        return StoreRow(id: ObjectID(entityName: name, key: try row.int64(offset)), version: try row.int64(offset + 2), values: values, hasToManyValues: false)
    }

    func run(_ sql: String, _ parameters: [SQLParameter]) throws {
        _ = send(sql, Self.bindings(parameters))
    }

    func query(_ sql: String, _ parameters: [SQLParameter], row: (PostgresResultRow) throws -> Void) throws {
        try flush()
        for found in try connection.rows(sql, Self.bindings(parameters)) { try row(PostgresResultRow(cells: found.makeRandomAccess())) }
    }

    func query(_ translated: SQLQueryTranslator.SQL, row: (PostgresResultRow) throws -> Void) throws {
        try flush()
        for found in try connection.rows(translated.text, try PostgreSQLDialect.bindings(translated.bindings)) {
            try row(PostgresResultRow(cells: found.makeRandomAccess()))
        }
    }

    func rowsChanged(by sql: String) throws -> Int {
        try flush()
        return try connection.rowsChanged(by: sql)
    }

    func flush() throws {
        defer { pending = [] }
        var firstError: (any Error)?
        for (future, sql) in pending {
            do { _ = try future.wait() } catch { if firstError == nil { firstError = PostgreSQLSQL.storeError(error, statement: sql) } }
        }
        if let firstError { throw firstError }
    }

    /// Sends a statement without waiting; the save awaits it with the others (`flush`).
    private func send(_ sql: String, _ bindings: PostgresBindings) -> EventLoopFuture<PostgresQueryResult> {
        let future = connection.send(sql, bindings)
        pending.append((future, sql))
        return future
    }

    static func bindings(_ parameters: [SQLParameter]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: parameters.count)
        for parameter in parameters {
            switch parameter {
            case .integer(let value): bindings.append(value)
            case .integers(let values): bindings.append(values)
            case .text(let value): bindings.append(value)
            }
        }
        return bindings
    }

    // MARK: Writing rows

    /// Keys from each table's sequence, one statement per table sent before the COPY text of the new
    /// records that refer to no other new record is made (the server draws meanwhile).
    func drawKeys(_ counts: [(table: String, count: Int)], inserting rows: [StoreRow], _ groups: [SQLRowGroup]) throws -> [String: [Int64]] {
        let drawing = counts.sorted(by: { $0.table < $1.table }).map { table, count in
            // One row holding every key (a row per key cost more to decode than the server took to draw them).
            (table, connection.send("SELECT array_agg(k ORDER BY k) FROM (SELECT nextval($1::regclass) AS k FROM generate_series(1, $2)) AS drawn",
                                    PostgreSQLStore.bindings { $0.append(PostgreSQLSQL.sequence(table)); $0.append(Int64(count)) }))
        }
        for group in groups where group.indices.count >= Self.copiedFrom {
            copyColumnsByEntity[group.entity.description.name] = try copyColumns(group.indices.map { rows[$0] }, group.entity, resolve: nil)
        }
        var keys: [String: [Int64]] = [:]
        for (table, future) in drawing {
            let result: PostgresQueryResult
            do { result = try future.wait() } catch { throw PostgreSQLSQL.storeError(error, statement: "SELECT nextval(…)") }
            keys[table] = try result.rows.first?.makeRandomAccess()[0].decode([Int64].self) ?? []
        }
        return keys
    }

    func insert(_ rows: [StoreRow], _ group: SQLRowGroup, keys: [Int64], resolve: (ObjectID) -> ObjectID) throws {
        let entity = group.entity
        if group.indices.count >= Self.copiedFrom {
            // Statements sent before it go first; an error of one of those is the one to report.
            try flush()
            var columns = copyColumnsByEntity.removeValue(forKey: entity.description.name)
            if columns == nil {
                columns = try withoutActuallyEscaping(resolve) { try copyColumns(group.indices.map { rows[$0] }, entity, resolve: $0) }
            }
            try connection.copy(into: entity.table, columns: ["Z_PK", "Z_ENT", "Z_OPT"] + entity.writtenColumns,
                                data: copyChunks(keys: keys, columns: columns!))
            return
        }
        if group.indices.count > 1, let bulk = try bulkInsert(group.indices.map { rows[$0] }, keys: keys, entity, resolve) {
            _ = send(bulk.sql, bulk.bindings)
            return
        }
        for (index, key) in zip(group.indices, keys) {
            _ = send(entity.insertSQL, try columnBindings(rows[index], entity, resolve, prefix: { $0.append(key); $0.append(Int32(entity.code)) }))
        }
    }

    func update(_ rows: [StoreRow], _ group: SQLRowGroup, slots: [Int]?, resolve: (ObjectID) -> ObjectID) throws -> () throws -> [Int64?] {
        let entity = group.entity
        let grouped = group.indices.map { rows[$0] }
        if grouped.count > 1, let slots, let bulk = try bulkUpdate(grouped, entity, slots: slots, resolve) {
            let future = send(bulk.sql, bulk.bindings)
            return {
                try self.flush()
                var versions: [Int64: Int64] = [:]
                for returned in try future.wait().rows {
                    let cells = returned.makeRandomAccess()
                    versions[try cells[0].decode(Int64.self)] = try cells[1].decode(Int64.self)
                }
                return grouped.map { versions[$0.id.key] }
            }
        }
        let futures = try grouped.map { row in
            var bindings = try columnBindings(row, entity, resolve, slots: slots, prefix: { _ in })
            bindings.append(row.id.key)
            bindings.append(Int32(entity.code))
            return send(slots.map(entity.updateSQL(slots:)) ?? entity.updateSQL, bindings)
        }
        return {
            try self.flush()
            return try futures.map { try $0.wait().rows.first?.makeRandomAccess()[0].decode(Int64.self) }
        }
    }

    /// New records of one entity from this many on are loaded with `COPY … FROM STDIN`, the faster way
    /// for many rows (docs/performance.md); fewer go as one `INSERT … FROM unnest(…)`, pipelined with
    /// the save's other statements (COPY waits for its answer).
    static let copiedFrom = 64
    /// The size of one `CopyData` message of a COPY.
    static let copyChunkBytes = 1 << 16

    /// The `COPY` text of new records of one entity after each one's key: entity code, version 1 and
    /// the written columns, a line a record, each line ending at its offset in `ends`. Without
    /// `resolve` (before the keys are drawn) nil when a record refers to another new record.
    private func copyColumns(_ rows: [StoreRow], _ entity: SQLLayout.Entity,
                             resolve: ((ObjectID) -> ObjectID)?) throws -> (text: ByteBuffer, ends: [Int])? {
        let description = entity.description
        let storage = entity.storage
        let prefix = "\t\(entity.code)\t1"
        var text = ByteBuffer()
        text.reserveCapacity(rows.count * 64)
        var ends: [Int] = []
        ends.reserveCapacity(rows.count)
        for row in rows {
            text.writeString(prefix)
            for (slot, stored) in storage.enumerated() {
                let value = slot < row.values.count ? row.values[slot] : .null
                switch stored {
                case .attribute(_, let type, _):
                    text.writeStaticString("\t")
                    try PostgreSQLCopyText.append(value, type: type, to: &text, entity: description.name, key: description.properties[slot].name)
                case .toOne:
                    if case .reference(var target?) = value {
                        if target.isTemporaryID {
                            guard let resolve else { return nil }
                            target = resolve(target)
                        }
                        text.writeStaticString("\t")
                        PostgreSQLCopyText.appendInteger(target.key, to: &text)
                        text.writeStaticString("\t")
                        PostgreSQLCopyText.appendInteger(layout.entities[target.entityName]?.code ?? 0, to: &text)
                    } else {
                        text.writeStaticString("\t\\N\t\\N")
                    }
                case .none, .toManyByInverse, .toManyByJoin:
                    break
                }
            }
            text.writeStaticString("\n")
            ends.append(text.writerIndex)
        }
        return (text, ends)
    }

    /// The `COPY` text of new records: each one's key, then its line of `columns`, in chunks of
    /// about `copyChunkBytes`.
    private func copyChunks(keys: [Int64], columns: (text: ByteBuffer, ends: [Int])) -> [ByteBuffer] {
        var chunks: [ByteBuffer] = []
        var buffer = ByteBuffer()
        buffer.reserveCapacity(Self.copyChunkBytes + 256)
        var start = columns.text.readerIndex
        for (key, end) in zip(keys, columns.ends) {
            PostgreSQLCopyText.appendInteger(key, to: &buffer)
            _ = columns.text.withUnsafeReadableBytes { bytes in
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[(start - columns.text.readerIndex)..<(end - columns.text.readerIndex)]))
            }
            start = end
            if buffer.readableBytes >= Self.copyChunkBytes {
                chunks.append(buffer)
                buffer = ByteBuffer()
                buffer.reserveCapacity(Self.copyChunkBytes + 256)
            }
        }
        if buffer.readableBytes > 0 { chunks.append(buffer) }
        return chunks
    }

    /// One `INSERT … SELECT … FROM unnest(…)` for several new records of one entity: each column's
    /// values as one array parameter (with an array of null flags beside it), so a save of many
    /// records costs one statement per entity. Nil for an entity with binary or transformable columns
    /// (their records are inserted one by one).
    private func bulkInsert(_ rows: [StoreRow], keys: [Int64], _ entity: SQLLayout.Entity,
                            _ resolve: (ObjectID) -> ObjectID) throws -> (sql: String, bindings: PostgresBindings)? {
        var bindings = PostgresBindings(capacity: 2 + entity.writtenColumns.count * 2)
        bindings.append(keys)
        guard let arrays = try columnArrays(rows, entity, slots: nil, resolve, into: &bindings) else { return nil }
        let columns = ["\"Z_PK\"", "\"Z_ENT\"", "\"Z_OPT\""] + arrays.columns.map { PostgreSQLSQL.quote($0.name) }
        let selects = ["u.k", "\(Int32(entity.code))", "1"] + arrays.columns.map(\.value)
        let sql = "INSERT INTO \(PostgreSQLSQL.quote(entity.table)) (\(columns.joined(separator: ", "))) SELECT \(selects.joined(separator: ", ")) "
            + "FROM unnest(\((["$1::bigint[]"] + arrays.arrays).joined(separator: ", "))) AS u(\((["k"] + arrays.names).joined(separator: ", ")))"
        return (sql, bindings)
    }

    /// One `UPDATE … FROM unnest(…)` for several changed records of one entity whose saves changed the
    /// same columns, returning each record's key and new version; nil as for `bulkInsert`.
    private func bulkUpdate(_ rows: [StoreRow], _ entity: SQLLayout.Entity, slots: [Int],
                            _ resolve: (ObjectID) -> ObjectID) throws -> (sql: String, bindings: PostgresBindings)? {
        var bindings = PostgresBindings(capacity: 1 + slots.count * 4)
        bindings.append(rows.map(\.id.key))
        guard let arrays = try columnArrays(rows, entity, slots: slots, resolve, into: &bindings) else { return nil }
        let table = PostgreSQLSQL.quote(entity.table)
        let sets = ["\"Z_OPT\" = t.\"Z_OPT\" + 1"] + arrays.columns.map { "\(PostgreSQLSQL.quote($0.name)) = \($0.value)" }
        let sql = "UPDATE \(table) AS t SET \(sets.joined(separator: ", ")) "
            + "FROM unnest(\((["$1::bigint[]"] + arrays.arrays).joined(separator: ", "))) AS u(\((["k"] + arrays.names).joined(separator: ", "))) "
            + "WHERE t.\"Z_PK\" = u.k AND t.\"Z_ENT\" = \(Int32(entity.code)) RETURNING t.\"Z_PK\", t.\"Z_OPT\""
        return (sql, bindings)
    }

    /// The array parameters of rows' columns (those of `slots`, or every written one), appended to
    /// `bindings` after what it holds: for each column a values array and a null-flags array; returns
    /// each column's name with its value over `unnest`'s row `u`, the typed array parameters and
    /// `u`'s column names. Nil when a column is binary or transformable (no array of those is sent).
    private func columnArrays(_ rows: [StoreRow], _ entity: SQLLayout.Entity, slots: [Int]?, _ resolve: (ObjectID) -> ObjectID,
                              into bindings: inout PostgresBindings) throws -> (columns: [(name: String, value: String)], arrays: [String], names: [String])? {
        var columns: [(name: String, value: String)] = [], arrays: [String] = [], names: [String] = []
        func column(_ name: String, _ arrayType: String, cast: String = "", append: (inout PostgresBindings) -> Void, nulls: [Bool]) {
            let index = names.count / 2 + 1
            append(&bindings)
            bindings.append(nulls)
            columns.append((name, "CASE WHEN u.n\(index) THEN NULL ELSE u.v\(index)\(cast) END"))
            arrays += ["$\(bindings.count - 1)::\(arrayType)[]", "$\(bindings.count)::boolean[]"]
            names += ["v\(index)", "n\(index)"]
        }
        let description = entity.description
        for (slot, storage) in entity.storage.enumerated() {
            if let slots, !slots.contains(slot) { continue }
            let values = rows.map { slot < $0.values.count ? $0.values[slot] : StoreValue.null }
            let nulls = values.map(\.isNull)
            switch storage {
            case .attribute(let name, let type, _):
                let key = description.properties[slot].name
                switch type {
                case .binary, .transformable:
                    return nil
                case .bool:
                    column(name, "boolean", append: { $0.append(values.map { if case .bool(let v) = $0 { return v }; if case .int(let v) = $0 { return v != 0 }; return false }) }, nulls: nulls)
                case .int16, .int32, .int64:
                    let integers = values.map { value -> Int64 in
                        switch value {
                        case .int(let v): return v
                        case .double(let v): return Int64(exactly: v.rounded(.towardZero)) ?? 0
                        case .bool(let v): return v ? 1 : 0
                        default: return 0
                        }
                    }
                    column(name, "bigint", cast: "::\(PostgreSQLSQL.type(type))", append: { $0.append(integers) }, nulls: nulls)
                case .float, .double, .date:
                    let numbers = values.map { value -> Double in
                        switch value {
                        case .double(let v): return v
                        case .int(let v): return Double(v)
                        case .date(let v): return v.timeIntervalSinceReferenceDate
                        default: return 0
                        }
                    }
                    column(name, "double precision", append: { $0.append(numbers) }, nulls: nulls)
                case .string, .uri, .decimal:
                    var texts: [String] = []
                    texts.reserveCapacity(values.count)
                    for value in values {
                        switch value {
                        case .string(let v):
                            if v.utf8.contains(0) {
                                throw PostgreSQLStoreError.unstorableValue(entity: description.name, key: key, reason: "the text holds U+0000, which PostgreSQL's text type cannot keep")
                            }
                            texts.append(v)
                        case .url(let v): texts.append(v.absoluteString)
                        case .decimal(let v): texts.append("\(v)")
                        case .int(let v): texts.append(String(v))
                        case .double(let v): texts.append(String(v))
                        default: texts.append("")
                        }
                    }
                    column(name, "text", cast: type == .decimal ? "::numeric" : "", append: { $0.append(texts) }, nulls: nulls)
                case .uuid:
                    column(name, "uuid", append: { $0.append(values.map { if case .uuid(let v) = $0 { return v }; return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }) }, nulls: nulls)
                }
            case .toOne(let name):
                let targets = values.map { value -> ObjectID? in if case .reference(let id?) = value { return resolve(id) }; return nil }
                column(name, "bigint", append: { $0.append(targets.map { $0?.key ?? 0 }) }, nulls: nulls)
                column(name + ".entity", "bigint", append: { $0.append(targets.map { $0.flatMap { layout.entities[$0.entityName]?.code } ?? 0 }) }, nulls: nulls)
            case .none, .toManyByInverse, .toManyByJoin:
                break
            }
        }
        return (columns, arrays, names)
    }

    /// The bindings of a row's columns in the entity's written-column order (only those of `slots`
    /// when given), after `prefix`.
    private func columnBindings(_ row: StoreRow, _ entity: SQLLayout.Entity, _ resolve: (ObjectID) -> ObjectID,
                                slots: [Int]? = nil, prefix: (inout PostgresBindings) -> Void) throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: entity.writtenColumns.count + 4)
        prefix(&bindings)
        for (slot, storage) in entity.storage.enumerated() {
            if let slots, !slots.contains(slot) { continue }
            let value = slot < row.values.count ? row.values[slot] : .null
            switch storage {
            case .attribute(_, let type, _):
                try PostgreSQLSQL.bind(value, type: type, into: &bindings, entity: entity.description.name,
                                       key: entity.description.properties[slot].name)
            case .toOne:
                if case .reference(let target?) = value {
                    let target = resolve(target)
                    bindings.append(target.key)
                    bindings.append(layout.entities[target.entityName]?.code ?? 0)
                } else {
                    bindings.appendNull()
                    bindings.appendNull()
                }
            case .none, .toManyByInverse, .toManyByJoin:
                break
            }
        }
        return bindings
    }

}

/// A row of a PostgreSQL result as the shared reads read it.
struct PostgresResultRow: SQLResultRow {
    let cells: PostgresRandomAccessRow

    func int64(_ column: Int) throws -> Int64 { try Self.int64(cells[column]) }

    /// A cell's integer. Keys, codes and versions come in binary as int8 (or int4): read straight
    /// from the bytes.
    static func int64(_ cell: PostgresCell) throws -> Int64 {
        if cell.format == .binary, let bytes = cell.bytes {
            if cell.dataType == .int8, bytes.readableBytes == 8, let value = bytes.getInteger(at: bytes.readerIndex, as: Int64.self) { return value }
            if cell.dataType == .int4, bytes.readableBytes == 4, let value = bytes.getInteger(at: bytes.readerIndex, as: Int32.self) { return Int64(value) }
        }
        return cell.dataType == .int4 ? Int64(try cell.decode(Int32.self)) : try cell.decode(Int64.self)
    }

    func isNull(_ column: Int) -> Bool { cells[column].bytes == nil }

    var columnCount: Int { cells.count }

    func value(_ column: Int, type: AttributeType) throws -> StoreValue { try PostgreSQLSQL.value(cells[column], type: type) }

    /// An `int8[]` (an empty one for NULL).
    func keys(_ column: Int) throws -> [Int64] { try cells[column].decode([Int64]?.self) ?? [] }
}
#endif
