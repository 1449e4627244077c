/// The recorded schema resolved against the model: for each entity, where each slot lives, ready
/// for reading and writing rows without looking names up.
package struct SQLLayout {
    /// How one slot of an entity is stored.
    package enum Storage {
        /// Not stored (transient).
        case none
        /// A column of the entity's table.
        case attribute(column: String, type: AttributeType, external: Bool)
        /// A to-one relationship: key column and its `.entity` column.
        case toOne(column: String)
        /// A to-many relationship read through its to-one inverse (destination table, inverse's column, order column).
        case toManyByInverse(destinationTable: String, inverseColumn: String, orderColumn: String?)
        /// A to-many relationship in a join table (its own, or its pair's).
        case toManyByJoin(JoinTable)
    }

    /// A join table as one relationship reads and writes it: the table, and the columns of its side.
    package struct JoinTable: Hashable, Sendable {
        package var table: String
        /// This side's columns (a table of one relationship: `source`, `target`, `target.entity`, `position`).
        package var columns: SQLSchema.JoinColumns
        /// Whether a many-to-many pair shares the table: a row written from this side fills the other
        /// side's entity and order columns too.
        package var isPaired: Bool

        /// The join table of a recorded relationship.
        init(table: String, columns: SQLSchema.JoinColumns?) {
            self.table = table
            self.columns = columns ?? SQLSchema.JoinColumns(source: "source", sourceEntity: "", position: "position",
                                                                target: "target", targetEntity: "target.entity", otherPosition: "")
            isPaired = columns != nil
        }

        /// The quoted names, for building statements.
        package var t: String { SQLSchemaPlanner.quote(table) }
        package var source: String { SQLSchemaPlanner.quote(columns.source) }
        package var target: String { SQLSchemaPlanner.quote(columns.target) }
        package var targetEntity: String { SQLSchemaPlanner.quote(columns.targetEntity) }
        package var position: String { SQLSchemaPlanner.quote(columns.position) }
        package var sourceEntity: String { SQLSchemaPlanner.quote(columns.sourceEntity) }
        package var otherPosition: String { SQLSchemaPlanner.quote(columns.otherPosition) }
    }

    /// What reading or writing a row does with one slot: its storage without the names (walking these
    /// per value copies no string).
    package enum ColumnKind {
        case none
        case attribute(type: AttributeType, external: Bool)
        case toOne
        case toMany
    }

    /// One entity: its code, table and slots (a class: looked up per row, shared, never copied).
    package final class Entity {
        package let description: EntityDescription
        package let code: Int64
        package let table: String
        package let storage: [Storage]
        /// `storage` without names, for the per-row loops.
        package let columnKinds: [ColumnKind]
        /// For each slot, the index of its column in the table's select list (attributes and to-one), else -1.
        package let selectIndex: [Int32]
        /// `INSERT` of a whole row: key, entity code, version 1, then the columns in slot order.
        package let insertSQL: String
        /// `UPDATE` of a whole row (columns in slot order, then key and entity code), returning the new version.
        package let updateSQL: String
        /// The columns a row writes, in slot order (a to-one's key column, then its entity column).
        package let writtenColumns: [String]
        let dialect: any SQLDialect
        /// The columns of `slots` (attributes; to-one relationships' key and entity columns), in order.
        package func columns(ofSlots slots: [Int]) -> [String] { Self.columns(ofSlots: slots, storage) }

        private static func columns(ofSlots slots: [Int], _ storage: [Storage]) -> [String] {
            var columns: [String] = []
            for slot in slots {
                switch storage[slot] {
                case .attribute(let column, _, _): columns.append(column)
                case .toOne(let column): columns += [column, column + ".entity"]
                default: break
                }
            }
            return columns
        }

        /// `UPDATE` of the columns of `slots` (then key and entity code), returning the new version: a
        /// property-level save's statement (`updateSQL` writes every column).
        package func updateSQL(slots: [Int]) -> String {
            Self.updateSQL(table: table, columns: columns(ofSlots: slots), dialect: dialect)
        }

        /// `UPDATE` of `columns` (then key and entity code), returning the new version.
        static func updateSQL(table: String, columns: [String], dialect: any SQLDialect) -> String {
            "UPDATE \(SQLSchemaPlanner.quote(table)) SET \"Z_OPT\" = \"Z_OPT\" + 1"
                + columns.enumerated().map { ", \(SQLSchemaPlanner.quote($0.element)) = \(dialect.placeholder($0.offset + 1))" }.joined()
                + " WHERE \"Z_PK\" = \(dialect.placeholder(columns.count + 1)) AND \"Z_ENT\" = \(dialect.placeholder(columns.count + 2)) RETURNING \"Z_OPT\""
        }

        /// Whether some slot is a to-many relationship kept outside the row (join table or ordered inverse).
        package let hasToManyStorage: Bool

        /// A plain stored attribute (`EntityDescription.isPlainStoredAttribute`) that a fetched fault
        /// loads from the statement straight into its slot.
        struct DirectLoad {
            /// The slot's place in an object's storage (`EntityDescription.slotOffsets`).
            let offset: Int
            let column: Int32
            let type: AttributeType
            let kind: UInt8
        }
        /// The plain attributes a fault's row loads straight into its storage, worked out once: the
        /// per-row loop then neither switches on each slot's storage nor tests whether it is plain.
        /// Binaries that may live in external files are in `externalLoads` instead (their column holds
        /// either the bytes or a file name). The other slots are `description.slotsNotPlain`.
        let directLoads: [DirectLoad]
        /// The plain attributes whose value may be in an external file.
        let externalLoads: [DirectLoad]

        init(description: EntityDescription, code: Int64, table: String, storage: [Storage], selectIndex: [Int32], dialect: any SQLDialect) {
            self.description = description
            self.code = code
            self.table = table
            self.storage = storage
            columnKinds = storage.map { storage in
                switch storage {
                case .none: return .none
                case .attribute(_, let type, let external): return .attribute(type: type, external: external)
                case .toOne: return .toOne
                case .toManyByInverse, .toManyByJoin: return .toMany
                }
            }
            self.selectIndex = selectIndex
            var directLoads: [DirectLoad] = [], externalLoads: [DirectLoad] = []
            let plain = description.isPlainStoredAttribute
            for (slot, kind) in columnKinds.enumerated() {
                guard case .attribute(let type, let external) = kind, slot < plain.count, plain[slot] else { continue }
                let load = DirectLoad(offset: Int(description.slotOffsets[slot]), column: selectIndex[slot], type: type, kind: description.scalarKinds[slot])
                if external { externalLoads.append(load) } else { directLoads.append(load) }
            }
            self.directLoads = directLoads
            self.externalLoads = externalLoads
            self.dialect = dialect
            writtenColumns = Self.columns(ofSlots: Array(storage.indices), storage)
            insertSQL = "INSERT INTO \(SQLSchemaPlanner.quote(table)) (\"Z_PK\", \"Z_ENT\", \"Z_OPT\""
                + writtenColumns.map { ", " + SQLSchemaPlanner.quote($0) }.joined()
                + ") VALUES (\(dialect.placeholder(1)), \(dialect.placeholder(2)), 1" + writtenColumns.indices.map { ", " + dialect.placeholder($0 + 3) }.joined() + ")"
            updateSQL = Self.updateSQL(table: table, columns: writtenColumns, dialect: dialect)
            hasToManyStorage = columnKinds.contains { if case .toMany = $0 { true } else { false } }
        }
    }

    /// One root table: its select list (system columns first) and the entities that share it.
    package struct Table {
        package let name: String
        package let columns: [String]
        package var entityCodes: [Int64]
        /// `SELECT` of every column of the table's records (a `WHERE` clause follows). Built once: a
        /// fault of one record looks its statement up by this text.
        package let selectSQL: String
        /// `SELECT` of every column of one record, by key and entity code.
        package let selectByKeySQL: String

        init(name: String, columns: [String], entityCodes: [Int64], dialect: any SQLDialect) {
            self.name = name
            self.columns = columns
            self.entityCodes = entityCodes
            selectSQL = "SELECT \(columns.map(SQLSchemaPlanner.quote).joined(separator: ", ")) FROM \(SQLSchemaPlanner.quote(name))"
            selectByKeySQL = selectSQL + " WHERE \"Z_PK\" = \(dialect.placeholder(1)) AND \"Z_ENT\" = \(dialect.placeholder(2))"
        }
    }

    package private(set) var entities: [String: Entity] = [:]
    package private(set) var namesByCode: [Int64: String] = [:]
    package private(set) var tables: [String: Table] = [:]

    /// The engine's SQL the layout's statements are written in.
    package let dialect: any SQLDialect

    package init(schema: SQLSchema, model: ManagedObjectModel, dialect: any SQLDialect) {
        self.dialect = dialect
        var columnsByTable: [String: [String]] = [:]
        for stored in schema.entities {
            var columns = columnsByTable[stored.table] ?? ["Z_PK", "Z_ENT", "Z_OPT"]
            columns += stored.attributes.map(\.column)
            for r in stored.relationships where r.column != nil { columns += [r.column!, r.column! + ".entity"] }
            columnsByTable[stored.table] = columns
        }
        for stored in schema.entities {
            namesByCode[stored.code] = stored.name
            tables[stored.table, default: Table(name: stored.table, columns: columnsByTable[stored.table]!, entityCodes: [], dialect: dialect)]
                .entityCodes.append(stored.code)
        }
        for stored in schema.entities {
            guard let description = model.entity(named: stored.name) else { continue }
            let columns = columnsByTable[stored.table]!
            var storage: [Storage] = []
            var selectIndex: [Int32] = []
            for property in description.properties {
                let owner = Self.owner(of: property.name, in: description, schema: schema)
                switch property {
                case .attribute(let a):
                    if let column = owner?.attributes.first(where: { $0.name == a.name })?.column {
                        storage.append(.attribute(column: column, type: a.type, external: a.allowsExternalStorage && a.type == .binary))
                        selectIndex.append(Int32(columns.firstIndex(of: column)!))
                    } else {
                        storage.append(.none)
                        selectIndex.append(-1)
                    }
                case .relationship(let r):
                    guard let stored = owner?.relationships.first(where: { $0.name == r.name }) else {
                        storage.append(.none)
                        selectIndex.append(-1)
                        continue
                    }
                    if let column = stored.column {
                        storage.append(.toOne(column: column))
                        selectIndex.append(Int32(columns.firstIndex(of: column)!))
                    } else if let join = stored.joinTable {
                        storage.append(.toManyByJoin(JoinTable(table: join, columns: stored.joinColumns)))
                        selectIndex.append(-1)
                    } else {
                        let destination = schema.entity(named: r.destinationName)!
                        let inverseOwner = model.entity(named: r.destinationName).flatMap { Self.owner(of: stored.inverse!, in: $0, schema: schema) }
                        let inverseColumn = inverseOwner?.relationships.first { $0.name == stored.inverse }?.column ?? stored.inverse!
                        storage.append(.toManyByInverse(destinationTable: destination.table, inverseColumn: inverseColumn, orderColumn: stored.orderColumn))
                        selectIndex.append(-1)
                    }
                }
            }
            entities[stored.name] = Entity(description: description, code: stored.code, table: stored.table,
                                           storage: storage, selectIndex: selectIndex, dialect: dialect)
        }
    }

    /// The recorded entity that declares a property (the entity itself or an ancestor).
    static func owner(of property: String, in entity: EntityDescription, schema: SQLSchema) -> SQLSchema.Entity? {
        var current: EntityDescription? = entity
        while let e = current {
            if let stored = schema.entity(named: e.name),
               stored.attributes.contains(where: { $0.name == property }) || stored.relationships.contains(where: { $0.name == property }) {
                return stored
            }
            current = e.parent
        }
        return nil
    }

    /// What `build` makes of the query's translation in this layout's dialect; nil when the query is
    /// not expressible in SQL (see `SQLQueryTranslator.expressible`).
    package func translated<T>(_ query: StoreQuery, _ build: (SQLQueryTranslator) throws -> T) throws -> T? {
        try SQLQueryTranslator.expressible { try build(SQLQueryTranslator(layout: self, query: query, dialect: dialect)) }
    }

    package func entity(_ name: String) throws -> Entity {
        guard let entity = entities[name] else { throw RuntimeError.unknownEntity(name) }
        return entity
    }
}

/// The layout's entities by name, remembering the last one asked for: rows of one entity come in
/// runs, so most lookups compare one name instead of hashing it.
struct EntityLookup {
    let layout: SQLLayout
    /// The entity looked up last, unretained (the layout keeps its entities).
    private var last: Unmanaged<SQLLayout.Entity>?

    init(layout: SQLLayout) { self.layout = layout }

    subscript(name: String) -> SQLLayout.Entity {
        mutating get throws {
            if let last, last._withUnsafeGuaranteedRef({ $0.description.name == name }) { return last.takeUnretainedValue() }
            let entity = try layout.entity(name)
            last = Unmanaged.passUnretained(entity)
            return entity
        }
    }

    /// The entity of a stored entity code (a row's `Z_ENT`); nil for a code the model does not have.
    /// Unretained (a fetch's rows come in runs of one entity: no retain and release of it per row).
    /// Valid as long as the layout is.
    mutating func entity(code: Int64) -> Unmanaged<SQLLayout.Entity>? {
        if let last, last._withUnsafeGuaranteedRef({ $0.code == code }) { return last }
        guard let name = layout.namesByCode[code], let entity = layout.entities[name] else { return nil }
        last = Unmanaged.passUnretained(entity)
        return last
    }
}

extension SQLLayout {
    /// `SELECT count(*)` of the members a record's to-many relationship at `slot` holds, one parameter
    /// for the record's key; nil when not stored.
    package func memberCountSQL(_ entity: Entity, slot: Int) -> String? {
        let q = SQLSchemaPlanner.quote, key = dialect.placeholder(1)
        switch entity.storage[slot] {
        case .toManyByJoin(let join): return "SELECT count(*) FROM \(join.t) WHERE \(join.source) = \(key)"
        case .toManyByInverse(let table, let column, _): return "SELECT count(*) FROM \(q(table)) WHERE \(q(column)) = \(key)"
        default: return nil
        }
    }

    /// `SELECT owner key, member key, member entity code` of a to-many relationship of several
    /// records, `owners` being the SQL that matches their keys (`SQLDialect.inKeys`), ordered by owner
    /// and then as the relationship orders its members; nil for a slot that is no stored to-many
    /// relationship.
    package func membersSQL(_ entity: Entity, slot: Int, owners: String) -> String? {
        membersSQL(entity.storage[slot], owners: owners)
    }

    /// `membersSQL` of a relationship kept as `storage`.
    package func membersSQL(_ storage: Storage, owners: String) -> String? {
        let q = SQLSchemaPlanner.quote
        switch storage {
        case .toManyByInverse(let table, let inverse, let order):
            let orderBy = order.map { "\(q($0)), " } ?? ""
            return "SELECT \(q(inverse)), \"Z_PK\", CAST(\"Z_ENT\" AS BIGINT) FROM \(q(table)) WHERE \(q(inverse)) \(owners) ORDER BY \(q(inverse)), \(orderBy)\"Z_PK\""
        case .toManyByJoin(let join):
            return "SELECT \(join.source), \(join.target), \(join.targetEntity) FROM \(join.t) WHERE \(join.source) \(owners) ORDER BY \(join.source), \(join.position)"
        default:
            return nil
        }
    }

    /// `SELECT` of the members' keys of one record's to-many relationship, in the relationship's order,
    /// `owner` being the SQL of the record's key (`t0."Z_PK"` in a fetch); nil for a slot that is no
    /// stored to-many relationship, or whose members may be of several entities (their keys would not
    /// name them).
    package func memberKeysSQL(_ entity: Entity, slot: Int, owner: String) -> String? {
        let q = SQLSchemaPlanner.quote
        guard entity.description.destination(ofSlot: slot).entity.subentities.isEmpty else { return nil }
        switch entity.storage[slot] {
        case .toManyByInverse(let table, let inverse, let order):
            let orderBy = order.map { "m.\(q($0)), " } ?? ""
            return "SELECT m.\"Z_PK\" FROM \(q(table)) m WHERE m.\(q(inverse)) = \(owner) ORDER BY \(orderBy)m.\"Z_PK\""
        case .toManyByJoin(let join):
            return "SELECT j.\(join.target) FROM \(join.t) j WHERE j.\(join.source) = \(owner) ORDER BY j.\(join.position)"
        default:
            return nil
        }
    }

    /// `membersSQL` with each member's whole row (the select list of its table) after the owner's key,
    /// in one statement (not the links and then the rows by key; docs/performance.md). Kept by the
    /// inverse: the members' table alone, each member once (it has one owner). Through a join table:
    /// its rows `LEFT JOIN`ed to the members' table, so a member shared by several owners comes once
    /// per link, and the link's target and entity code close each row. Nil for a slot that is no
    /// stored to-many relationship.
    package func membersWithRowsSQL(_ entity: Entity, slot: Int, owners: String) -> String? {
        let q = SQLSchemaPlanner.quote
        switch entity.storage[slot] {
        case .toManyByInverse(let table, let inverse, let order):
            guard let columns = tables[table]?.columns else { return nil }
            let orderBy = order.map { "\(q($0)), " } ?? ""
            return "SELECT \(q(inverse)), \(columns.map(q).joined(separator: ", ")) FROM \(q(table)) "
                + "WHERE \(q(inverse)) \(owners) ORDER BY \(q(inverse)), \(orderBy)\"Z_PK\""
        case .toManyByJoin(let join):
            guard let destination = entities[entity.description.destination(ofSlot: slot).entity.name],
                  let columns = tables[destination.table]?.columns else { return nil }
            // A link whose member's record is gone keeps its place (the row's columns NULL) and names
            // the member in the last two columns, so loading it fails as a fault would.
            return "SELECT j.\(join.source), \(columns.map { "m." + q($0) }.joined(separator: ", ")), j.\(join.target), j.\(join.targetEntity) "
                + "FROM \(join.t) j LEFT JOIN \(q(destination.table)) m ON m.\"Z_PK\" = j.\(join.target) "
                + "WHERE j.\(join.source) \(owners) ORDER BY j.\(join.source), j.\(join.position)"
        default:
            return nil
        }
    }

    /// `SELECT count(*)` of the records still pointing at a record through the inverse of its
    /// relationship at `slot` (their to-one column, or their join rows), one parameter for the
    /// record's key; nil without an inverse.
    package func referrerCountSQL(_ entity: Entity, slot: Int) -> String? {
        let q = SQLSchemaPlanner.quote, key = dialect.placeholder(1)
        let (destination, inverse) = entity.description.destination(ofSlot: slot)
        guard let inverse, let other = entities[destination.name] else { return nil }
        switch other.storage[inverse] {
        case .toOne(let column): return "SELECT count(*) FROM \(q(other.table)) WHERE \(q(column)) = \(key)"
        case .toManyByJoin(let join): return "SELECT count(*) FROM \(join.t) WHERE \(join.target) = \(key)"
        default: return nil
        }
    }
}
