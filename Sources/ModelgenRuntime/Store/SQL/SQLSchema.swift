import Foundation

/// The table layout of a SQL store (SQLite and PostgreSQL alike), recorded in the database (as JSON in
/// `"modelgen.metadata"`) so that a later model can be compared with what the database holds.
///
/// - One table per root entity, named after it; subentities share their root's table. System columns:
///   `Z_PK` (the record's key), `Z_ENT` (the entity's code), `Z_OPT` (version, for optimistic locking).
/// - One column per stored attribute, named after it (`Entity.name` when a sibling took the name).
/// - A to-one relationship: a column with the destination's key and `<name>.entity` with its entity code.
/// - A to-many relationship whose inverse is to-one: nothing of its own (the inverse's column says it);
///   when ordered, `<inverse>.order` on the destination's table keeps the order.
/// - A many-to-many pair: one join table, `"<Entity>.<name>"` of the side whose `Entity.name` sorts
///   first, one row per link: `source`, `source.entity` and `position` (that side's owner and order),
///   `target`, `target.entity` and `target.position` (the other side's). Stores made before format 2
///   kept a table per side; opening one merges each pair's two tables into one.
/// - Any other to-many relationship (no inverse, or its own inverse): a join table `"<Entity>.<name>"`
///   with `source`, `target`, `target.entity` and `position`.
package struct SQLSchema: Codable, Equatable {
    /// 2: one join table per many-to-many pair (1: one per side).
    package static let formatVersion = 2

    package var formatVersion = SQLSchema.formatVersion
    package var modelName: String
    package var versionHash: String
    package var entities: [Entity]

    package struct Entity: Codable, Equatable {
        package var name: String
        package var code: Int64
        package var parent: String?
        package var table: String
        package var attributes: [Attribute]
        package var relationships: [Relationship]
    }

    package struct Attribute: Codable, Equatable {
        package var name: String
        package var type: String
        package var optional: Bool
        package var column: String
    }

    package struct Relationship: Codable, Equatable {
        package var name: String
        package var destination: String
        package var toMany: Bool
        package var ordered: Bool
        /// To-one: the key column (its entity code column is `column + ".entity"`).
        package var column: String?
        /// To-many through the inverse: the inverse's name; `orderColumn` on the destination's table when ordered.
        package var inverse: String?
        package var orderColumn: String?
        /// Other to-many: the join table.
        package var joinTable: String?
        /// For a join table a many-to-many pair shares: the columns this side reads and writes (nil: the
        /// table is this relationship's alone, with `source`, `target`, `target.entity` and `position`).
        package var joinColumns: JoinColumns?
    }

    /// The columns one side of a many-to-many pair uses in the pair's join table.
    package struct JoinColumns: Codable, Hashable, Sendable {
        /// The owner's key, its entity code and its order among the owner's members.
        package var source: String
        package var sourceEntity: String
        package var position: String
        /// The member's key and entity code, and the owner's order among the member's own members (the other side's).
        package var target: String
        package var targetEntity: String
        package var otherPosition: String

        /// The side whose `Entity.name` sorts first: the table's `source` is its owner.
        package static let first = JoinColumns(source: "source", sourceEntity: "source.entity", position: "position",
                                               target: "target", targetEntity: "target.entity", otherPosition: "target.position")
        /// The other side: the same columns, seen from the member.
        package static let second = JoinColumns(source: "target", sourceEntity: "target.entity", position: "target.position",
                                                target: "source", targetEntity: "source.entity", otherPosition: "position")
    }

    package func entity(named name: String) -> Entity? { entities.first { $0.name == name } }
}

/// Builds the layout for a model, reusing what an existing file's layout assigned (so renamed
/// attributes keep their column), and lists what a migration must add or cannot do.
package struct SQLSchemaPlanner {
    package let model: ManagedObjectModel
    package let previous: SQLSchema?
    /// Plans a custom migration stage: what a lightweight migration refuses (a changed type or
    /// cardinality, a new required attribute without a default) gets new storage beside the old,
    /// the old storage is dropped after the stage's code ran (`removals`), and the required values
    /// the stage's code must fill are listed (`requiredChecks`).
    package let customStage: Bool

    package init(model: ManagedObjectModel, previous: SQLSchema?, customStage: Bool = false) {
        self.model = model
        self.previous = previous
        self.customStage = customStage
    }

    /// The new layout, the statements that bring an existing file to it, and the changes that cannot be migrated.
    package struct Plan {
        package var schema: SQLSchema
        package var statements: [String]
        /// Changes no migration can make (a type or a parent changed, a new required attribute without a default).
        package var problems: [String]
        /// What the model removed, whose saved data a migration would drop: applied only when the store
        /// is opened with `MigrationPolicy.dropRemoved`, else refused like `problems`.
        package var losses: [String] = []
        /// How to drop it, in order (references first, tables last); each store writes its own SQL.
        package var removals: [Removal] = []
        /// The model's indexes and unique indexes (`Entity.index(a,b)`, `Entity.unique(a,b)`): any other
        /// index so named is left over from an earlier model and dropped.
        package var modelIndexes: [ModelIndex] = []
        /// Their names.
        package var modelIndexNames: Set<String> { Set(modelIndexes.map(\.name)) }
        /// The join tables of format 1 to merge, a pair's two into one (see `JoinMerge`).
        package var joinMerges: [JoinMerge] = []
        /// Custom stages: the required columns that may hold NULL until the stage's code fills them
        /// (new, retyped, or made required without a default); the stage fails if any still does.
        package var requiredChecks: [RequiredCheck] = []

        /// The problems that keep a store from opening with `policy`, with how to allow the losses.
        package func refusals(under policy: MigrationPolicy) -> [String] {
            guard policy == .additive, !losses.isEmpty else { return problems }
            return problems + losses.map { $0 + " (open the store with migration: .dropRemoved to drop it)" }
        }
    }

    /// One step of dropping what the model removed.
    package enum Removal: Equatable, Sendable {
        /// References to records of a removed subentity: a to-one column pair set to NULL where it names the code.
        case unlink(table: String, column: String, code: Int64)
        /// Join-table rows whose target (or, in a pair's table, either side) is a record of a removed subentity.
        case joinRows(table: String, code: Int64, paired: Bool)
        /// The records of a removed subentity, from the table its hierarchy keeps.
        case rows(table: String, code: Int64)
        /// A column of a table that stays (a removed attribute, a to-one's key or entity code, an order column).
        case column(table: String, column: String)
        /// A whole table: a removed root entity's, or a removed many-to-many's join table.
        case table(String)
    }

    /// A required attribute (or to-one relationship) a custom stage's code must give every record a value.
    package struct RequiredCheck: Equatable, Sendable {
        /// `Entity.property`, for the error.
        package var property: String
        package var table: String
        package var column: String
        /// The entity codes of the entity and its subentities (their records share the table).
        package var codes: [Int64]

        /// A query counting the records that have no value.
        package var countStatement: String {
            let q = SQLSchemaPlanner.quote
            return "SELECT count(*) FROM \(q(table)) WHERE \(q(column)) IS NULL AND \"Z_ENT\" IN (\(codes.map(String.init).joined(separator: ", ")))"
        }
    }

    /// An index of the model (`indexes:`) or of a uniqueness constraint, on its columns in order.
    package struct ModelIndex: Equatable, Sendable {
        /// A column of the index, and whether it may hold NULL (an optional attribute, a to-one key).
        package struct Column: Equatable, Sendable {
            package var name: String
            package var mayBeNull: Bool
        }
        package var name: String
        package var table: String
        package var columns: [Column]
        package var unique: Bool
        /// A partial unique index's ` WHERE …` (a subentity's), or "".
        package var condition: String

        /// Its `CREATE INDEX`; with `nullsFirst`, the columns that may hold NULL keep it first, the order
        /// an engine that sorts NULL last by default is asked for (`SQLDialect.orderTerm`), so that a sort
        /// by such a column can still read the index in order.
        package func statement(nullsFirst: Bool) -> String {
            let q = SQLSchemaPlanner.quote
            let list = columns.map { q($0.name) + (nullsFirst && $0.mayBeNull ? " NULLS FIRST" : "") }.joined(separator: ", ")
            return "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(q(name)) ON \(q(table)) (\(list))\(condition)"
        }

        /// Whether an engine that sorts NULL last needs its own form of the index (`statement(nullsFirst: true)`).
        package var ordersNulls: Bool { columns.contains(where: \.mayBeNull) }
    }

    /// A many-to-many pair stored in two tables (format 1) becoming one: `kept` (the owner side's)
    /// gains the other side's entity and order columns, filled from `dropped`, which goes.
    package struct JoinMerge: Equatable, Sendable {
        package var kept: String
        package var dropped: String
        /// The root tables of the owner side's and the other side's entities (their records' entity codes).
        package var ownerRoot: String
        package var otherRoot: String

        /// The statements of the merge, `integer` the database's integer type; links only one table
        /// held (a store written inconsistently) are kept, after the others in order.
        package func statements(integer: String) -> [String] {
            let q = SQLSchemaPlanner.quote
            let (k, d) = (q(kept), q(dropped))
            return [
                "ALTER TABLE \(k) ADD COLUMN \"source.entity\" \(integer)",
                "ALTER TABLE \(k) ADD COLUMN \"target.position\" \(integer)",
                "UPDATE \(k) SET \"source.entity\" = (SELECT o.\"Z_ENT\" FROM \(q(ownerRoot)) o WHERE o.\"Z_PK\" = \(k).\"source\"), "
                    + "\"target.position\" = (SELECT d.\"position\" FROM \(d) d WHERE d.\"source\" = \(k).\"target\" AND d.\"target\" = \(k).\"source\")",
                "INSERT INTO \(k) (\"source\", \"target\", \"target.entity\", \"position\", \"source.entity\", \"target.position\") "
                    + "SELECT d.\"target\", d.\"source\", (SELECT o.\"Z_ENT\" FROM \(q(otherRoot)) o WHERE o.\"Z_PK\" = d.\"source\"), 1000000000 + d.\"position\", d.\"target.entity\", d.\"position\" "
                    + "FROM \(d) d WHERE NOT EXISTS (SELECT 1 FROM \(k) x WHERE x.\"source\" = d.\"target\" AND x.\"target\" = d.\"source\")",
                "UPDATE \(k) SET \"target.position\" = 1000000000 + \"position\" WHERE \"target.position\" IS NULL",
                "DROP TABLE \(d)",
                "DROP INDEX IF EXISTS \(q(kept + ".target"))",
                SQLSchemaPlanner.inverseMembersIndex(kept),
            ]
        }
    }

    package func plan() -> Plan {
        // Renamed entities and relationships (`renamingIdentifier`): the recorded ones they continue.
        var newEntityName: [String: String] = [:]   // recorded name -> the model's
        for entity in model.entities {
            if previous?.entity(named: entity.name) != nil {
                newEntityName[entity.name] = entity.name
            } else if let former = entity.renamingIdentifier, previous?.entity(named: former) != nil, model.entity(named: former) == nil {
                newEntityName[former] = entity.name
            }
        }
        /// The recorded entity the model's entity `name` continues (same name, or its former one).
        func previousEntity(_ name: String) -> SQLSchema.Entity? {
            previous?.entities.first { newEntityName[$0.name] == name }
        }
        /// The recorded relationship a relationship of the model continues (same name, or its former one).
        func previousRelationship(_ r: RelationshipDescription, in old: SQLSchema.Entity?) -> SQLSchema.Relationship? {
            old?.relationships.first { $0.name == r.name } ?? r.renamingIdentifier.flatMap { former in old?.relationships.first { $0.name == former } }
        }
        /// Whether a recorded relationship's storage serves the model's relationship as it is (same
        /// destination, cardinality, ordering and inverse storage); in a custom stage, one that does not
        /// gets new storage.
        func keepsStorage(_ stored: SQLSchema.Relationship, _ r: RelationshipDescription) -> Bool {
            guard (newEntityName[stored.destination] ?? stored.destination) == r.destinationName,
                  stored.toMany == r.isToMany, stored.ordered == r.isOrdered else { return false }
            guard r.isToMany else { return true }
            let inverse = r.inverseName.flatMap { name in model.entity(named: r.destinationName)?.relationships(named: name) }
            let viaInverse = inverse.map { !$0.isToMany && !$0.isTransient } ?? false
            return (stored.inverse != nil) == viaInverse
        }
        var required: [(entity: EntityDescription, property: String, column: String)] = []
        var problems: [String] = []
        var statements: [String] = []
        var tableNames = NameAllocator(reserved: ["modelgen.metadata", "sqlite_sequence"])
        var columnsByTable: [String: NameAllocator] = [:]
        var nextCode = (previous?.entities.map(\.code).max() ?? 0) + 1
        var entities: [SQLSchema.Entity] = []
        previous?.entities.forEach { tableNames.take($0.table) }
        for old in previous?.entities ?? [] {
            var columns = columnsByTable[old.table] ?? NameAllocator(reserved: ["Z_PK", "Z_ENT", "Z_OPT"])
            old.attributes.forEach { columns.take($0.column) }
            for r in old.relationships {
                if let c = r.column { columns.take(c); columns.take(c + ".entity") }
                if let j = r.joinTable { tableNames.take(j) }
            }
            columnsByTable[old.table] = columns
        }
        // Order columns of ordered to-many relationships live on the destination's table.
        for old in previous?.entities ?? [] {
            for r in old.relationships {
                if let order = r.orderColumn, let destination = previous?.entity(named: r.destination) {
                    columnsByTable[destination.table]?.take(order)
                }
            }
        }

        func root(of entity: EntityDescription) -> EntityDescription {
            var current = entity
            while let parent = current.parent { current = parent }
            return current
        }

        // Entities, attributes and to-one relationships, parents before children.
        let ordered = model.entities.filter { $0.parent == nil }.flatMap(\.selfAndDescendants)
        var added: [String: [(column: String, definition: String)]] = [:]
        var newTables: Set<String> = []
        for entity in ordered {
            let old = previousEntity(entity.name)
            let table: String
            if let parent = entity.parent {
                table = entities.first { $0.name == parent.name }!.table
            } else {
                table = old?.table ?? tableNames.allocate(entity.name)
                if old == nil { newTables.insert(table) }
            }
            if let old, old.parent != entity.parentName {
                problems.append("entity \(entity.name): its parent changed from \(old.parent ?? "none") to \(entity.parentName ?? "none")")
            }
            var columns = columnsByTable[table] ?? NameAllocator(reserved: ["Z_PK", "Z_ENT", "Z_OPT"])
            var attributes: [SQLSchema.Attribute] = []
            for a in entity.ownAttributes where !a.isTransient {
                let match = old?.attributes.first { $0.name == a.name }
                    ?? a.renamingIdentifier.flatMap { former in old?.attributes.first { $0.name == former } }
                if let match, customStage && match.type != a.type.rawValue {
                    // A custom stage: the new type gets a column of its own, the stage's code converts.
                    let column = columns.allocate(columns.isFree(a.name) ? a.name : "\(entity.name).\(a.name)")
                    attributes.append(.init(name: a.name, type: a.type.rawValue, optional: a.isOptional, column: column))
                    added[table, default: []].append((column, "\(SQLSchemaPlanner.quote(column)) \(Self.sqlType(a.type))\(Self.defaultClause(a))"))
                    if !a.isOptional && a.defaultValue.isNull { required.append((entity, a.name, column)) }
                } else if let match {
                    if match.type != a.type.rawValue {
                        problems.append("attribute \(entity.name).\(a.name): its type changed from \(match.type) to \(a.type.rawValue)")
                    }
                    if match.optional && !a.isOptional && a.defaultValue.isNull {
                        if customStage {
                            required.append((entity, a.name, match.column))
                        } else {
                            problems.append("attribute \(entity.name).\(a.name): became required without a default value; saved records may have none")
                        }
                    }
                    attributes.append(.init(name: a.name, type: a.type.rawValue, optional: a.isOptional, column: match.column))
                } else {
                    let column = columns.allocate(columns.isFree(a.name) ? a.name : "\(entity.name).\(a.name)")
                    attributes.append(.init(name: a.name, type: a.type.rawValue, optional: a.isOptional, column: column))
                    if old != nil || (entity.parent != nil && !newTables.contains(table)) {
                        if !a.isOptional && a.defaultValue.isNull {
                            if customStage {
                                required.append((entity, a.name, column))
                            } else {
                                problems.append("attribute \(entity.name).\(a.name) is new, required and has no default value: saved \(entity.name) records would have none")
                            }
                        }
                        added[table, default: []].append((column, "\(SQLSchemaPlanner.quote(column)) \(Self.sqlType(a.type))\(Self.defaultClause(a))"))
                    }
                }
            }
            var relationships: [SQLSchema.Relationship] = []
            for r in entity.ownRelationships where !r.isTransient && !r.isToMany {
                let match = previousRelationship(r, in: old).flatMap { !customStage || keepsStorage($0, r) ? $0 : nil }
                let column = match?.column ?? columns.allocate(columns.isFree(r.name) ? r.name : "\(entity.name).\(r.name)")
                if match == nil { columns.take(column + ".entity") }
                relationships.append(.init(name: r.name, destination: r.destinationName, toMany: false, ordered: false, column: column))
                if match == nil && (old != nil || (entity.parent != nil && !newTables.contains(table))) {
                    added[table, default: []].append((column, "\(SQLSchemaPlanner.quote(column)) INTEGER"))
                    added[table, default: []].append((column + ".entity", "\(SQLSchemaPlanner.quote(column + ".entity")) INTEGER"))
                    if customStage && !r.isOptional { required.append((entity, r.name, column)) }
                }
            }
            columnsByTable[table] = columns
            entities.append(.init(name: entity.name, code: old?.code ?? nextCode, parent: entity.parentName, table: table,
                                  attributes: attributes, relationships: relationships))
            if old == nil { nextCode += 1 }
        }

        // To-many relationships, now that every table's columns are known.
        var pairTables: [String: String] = [:]
        var joinMerges: [JoinMerge] = []
        /// The table of the root of an entity's hierarchy.
        func rootTable(_ name: String) -> String {
            entities.first { $0.name == root(of: model.entity(named: name)!).name }!.table
        }
        for entity in ordered {
            let index = entities.firstIndex { $0.name == entity.name }!
            let old = previousEntity(entity.name)
            for r in entity.ownRelationships where !r.isTransient && r.isToMany {
                let match = previousRelationship(r, in: old).flatMap { !customStage || keepsStorage($0, r) ? $0 : nil }
                let inverse = r.inverseName.flatMap { name in model.entity(named: r.destinationName)?.relationships(named: name) }
                var stored = SQLSchema.Relationship(name: r.name, destination: r.destinationName, toMany: true, ordered: r.isOrdered)
                if let inverse, !inverse.isToMany, !inverse.isTransient {
                    stored.inverse = inverse.name
                    if r.isOrdered {
                        let destinationTable = entities.first { $0.name == root(of: model.entity(named: r.destinationName)!).name }!.table
                        if let existing = match?.orderColumn {
                            stored.orderColumn = existing
                        } else {
                            var columns = columnsByTable[destinationTable]!
                            let column = columns.allocate("\(inverse.name).order")
                            columnsByTable[destinationTable] = columns
                            stored.orderColumn = column
                            if !newTables.contains(destinationTable) {
                                added[destinationTable, default: []].append((column, "\(SQLSchemaPlanner.quote(column)) INTEGER"))
                            }
                        }
                    }
                } else if let pair = pairing(of: r, declaredBy: entity) {
                    // One join table per many-to-many pair (format 2), its owner the side that sorts first.
                    let otherMatch = model.entity(named: pair.otherEntity)?.ownRelationships.first { $0.name == pair.otherName }
                        .flatMap { previousRelationship($0, in: previousEntity(pair.otherEntity)) }
                    let columns: SQLSchema.JoinColumns = pair.isOwner ? .first : .second
                    if let match, let table = match.joinTable, match.joinColumns != nil {
                        stored.joinTable = table
                        stored.joinColumns = match.joinColumns
                    } else if let match, let table = match.joinTable, let otherTable = otherMatch?.joinTable, otherMatch?.joinColumns == nil {
                        // A store of format 1: the pair's two tables become the owner's one.
                        let (kept, dropped) = pair.isOwner ? (table, otherTable) : (otherTable, table)
                        stored.joinTable = kept
                        stored.joinColumns = columns
                        let merge = JoinMerge(kept: kept, dropped: dropped, ownerRoot: rootTable(pair.isOwner ? entity.name : pair.otherEntity),
                                              otherRoot: rootTable(pair.isOwner ? pair.otherEntity : entity.name))
                        if !joinMerges.contains(merge) { joinMerges.append(merge) }
                    } else if match?.joinTable != nil || otherMatch?.joinTable != nil && otherMatch?.joinColumns == nil {
                        // One side stored before alone, the other new: each keeps a table of its own.
                        stored.joinTable = match?.joinTable ?? tableNames.allocate("\(entity.name).\(r.name)")
                        if match?.joinTable == nil { statements.append(Self.createJoinTable(stored.joinTable!)) }
                    } else {
                        stored.joinColumns = columns
                        if let table = otherMatch?.joinTable ?? pairTables[pair.ownerKey] {
                            stored.joinTable = table
                        } else {
                            let table = tableNames.allocate(pair.ownerKey)
                            pairTables[pair.ownerKey] = table
                            stored.joinTable = table
                            statements.append(Self.createJoinTable(table, paired: true))
                        }
                    }
                } else {
                    stored.joinTable = match?.joinTable ?? tableNames.allocate("\(entity.name).\(r.name)")
                    stored.joinColumns = match?.joinColumns
                    if match?.joinTable == nil { statements.append(Self.createJoinTable(stored.joinTable!)) }
                }
                if let match, match.inverse != stored.inverse || (match.joinTable == nil) != (stored.joinTable == nil) {
                    problems.append("relationship \(entity.name).\(r.name): how it is stored changed (its inverse changed from \(match.inverse ?? "none or to-many") to \(stored.inverse ?? "none or to-many"))")
                }
                entities[index].relationships.append(stored)
            }
        }

        // What the previous layout had that this one lost (losses, with how to drop them), or changed incompatibly.
        var losses: [String] = []
        var removals: [Removal] = []
        func remove(_ removal: Removal) { if !removals.contains(removal) { removals.append(removal) } }
        let keptTables = Set(entities.map(\.table))
        /// The storage of a removed relationship of `old`, dropped.
        func removeStorage(of r: SQLSchema.Relationship, in old: SQLSchema.Entity) {
            if let column = r.column, keptTables.contains(old.table) {
                remove(.column(table: old.table, column: column))
                remove(.column(table: old.table, column: column + ".entity"))
            }
            // A pair's table stays while the other side of the pair is kept.
            if let join = r.joinTable, !entities.contains(where: { $0.relationships.contains { $0.joinTable == join } }) { remove(.table(join)) }
            if let order = r.orderColumn, let destination = previous?.entity(named: r.destination), keptTables.contains(destination.table) {
                remove(.column(table: destination.table, column: order))
            }
        }
        var removedCodes: [Int64] = []
        for old in previous?.entities ?? [] {
            guard let new = entities.first(where: { $0.name == newEntityName[old.name] }) else {
                losses.append("entity \(old.name) was removed (or renamed); its records would be lost")
                if keptTables.contains(old.table) {
                    remove(.rows(table: old.table, code: old.code))
                    removedCodes.append(old.code)
                    for a in old.attributes { remove(.column(table: old.table, column: a.column)) }
                } else {
                    remove(.table(old.table))
                }
                for r in old.relationships { removeStorage(of: r, in: old) }
                continue
            }
            for a in old.attributes where !new.attributes.contains(where: { $0.column == a.column }) {
                losses.append("attribute \(old.name).\(a.name) was removed (a rename needs renamingIdentifier: \(a.name)); its values would be lost")
                remove(.column(table: old.table, column: a.column))
            }
            for r in old.relationships {
                let description = model.entity(named: new.name)
                guard let n = new.relationships.first(where: { stored in
                    stored.name == r.name || description?.relationships(named: stored.name)?.renamingIdentifier == r.name && !new.relationships.contains { $0.name == r.name }
                }) else {
                    losses.append("relationship \(old.name).\(r.name) was removed; its links would be lost")
                    removeStorage(of: r, in: old)
                    continue
                }
                if customStage && (n.joinTable != r.joinTable || n.column != r.column || n.orderColumn != r.orderColumn) {
                    // A custom stage gave the relationship new storage; the old goes once the stage's code ran.
                    removeStorage(of: r, in: old)
                } else if n.destination != newEntityName[r.destination] ?? r.destination || n.toMany != r.toMany || n.ordered != r.ordered {
                    problems.append("relationship \(old.name).\(r.name): its destination, cardinality or ordering changed")
                }
            }
        }
        // Links that remaining relationships hold to records of a removed subentity (first of all).
        var unlinks: [Removal] = []
        for code in removedCodes {
            for entity in entities {
                for r in entity.relationships {
                    if let column = r.column { unlinks.append(.unlink(table: entity.table, column: column, code: code)) }
                    if let join = r.joinTable { unlinks.append(.joinRows(table: join, code: code, paired: r.joinColumns != nil)) }
                }
            }
        }
        removals = unlinks + removals.sorted { $0.order < $1.order }

        // Tables: new root tables whole, existing ones altered.
        for entity in entities where entity.parent == nil && newTables.contains(entity.table) {
            var definitions = ["\"Z_PK\" INTEGER PRIMARY KEY", "\"Z_ENT\" INTEGER NOT NULL", "\"Z_OPT\" INTEGER NOT NULL"]
            for member in entities where member.table == entity.table {
                let description = model.entity(named: member.name)!
                for a in member.attributes {
                    let attribute = description.ownAttributes.first { $0.name == a.name }!
                    definitions.append("\(Self.quote(a.column)) \(Self.sqlType(attribute.type))")
                }
                for r in member.relationships where r.column != nil {
                    definitions.append("\(Self.quote(r.column!)) INTEGER")
                    definitions.append("\(Self.quote(r.column! + ".entity")) INTEGER")
                }
            }
            for other in entities {
                for r in other.relationships where r.orderColumn != nil {
                    let destinationRoot = root(of: model.entity(named: r.destination)!)
                    if entities.first(where: { $0.name == destinationRoot.name })!.table == entity.table {
                        definitions.append("\(Self.quote(r.orderColumn!)) INTEGER")
                    }
                }
            }
            statements.insert("CREATE TABLE \(Self.quote(entity.table)) (\(definitions.joined(separator: ", ")))", at: 0)
        }
        for (table, columns) in added.sorted(by: { $0.key < $1.key }) {
            for column in columns {
                statements.append("ALTER TABLE \(Self.quote(table)) ADD COLUMN \(column.definition)")
            }
        }

        // Indexes: every to-one column (relationship lookups), the model's indexes and uniqueness constraints.
        var modelIndexes: [ModelIndex] = []
        for entity in entities {
            guard let description = model.entity(named: entity.name) else { continue }
            func columns(_ names: [String]) -> [ModelIndex.Column]? {
                var result: [ModelIndex.Column] = []
                for name in names {
                    var current: EntityDescription? = description
                    var found: ModelIndex.Column?
                    while let e = current, found == nil {
                        let stored = entities.first { $0.name == e.name }!
                        if let attribute = stored.attributes.first(where: { $0.name == name }) {
                            found = ModelIndex.Column(name: attribute.column, mayBeNull: attribute.optional)
                        } else if let column = stored.relationships.first(where: { $0.name == name })?.column {
                            found = ModelIndex.Column(name: column, mayBeNull: true)
                        }
                        current = e.parent
                    }
                    guard let found else { return nil }
                    result.append(found)
                }
                return result
            }
            for r in entity.relationships where r.column != nil {
                statements.append("CREATE INDEX IF NOT EXISTS \(Self.quote("\(entity.table).\(r.column!)")) ON \(Self.quote(entity.table)) (\(Self.quote(r.column!)))")
            }
            for names in description.indexes {
                guard let cs = columns(names) else { continue }
                let index = ModelIndex(name: "\(entity.name).index(\(names.joined(separator: ",")))", table: entity.table, columns: cs, unique: false, condition: "")
                modelIndexes.append(index)
                statements.append(index.statement(nullsFirst: false))
            }
            for names in description.uniquenessConstraints {
                guard let cs = columns(names) else { continue }
                let condition = entity.parent == nil ? "" : " WHERE \"Z_ENT\" IN (\(codes(of: description, in: entities).map(String.init).joined(separator: ", ")))"
                let index = ModelIndex(name: "\(entity.name).unique(\(names.joined(separator: ",")))", table: entity.table, columns: cs, unique: true, condition: condition)
                modelIndexes.append(index)
                statements.append(index.statement(nullsFirst: false))
            }
        }

        let schema = SQLSchema(modelName: model.name, versionHash: model.versionHash, entities: entities)
        for merge in joinMerges { statements += merge.statements(integer: "INTEGER") }
        let requiredChecks = required.map { check in
            RequiredCheck(property: "\(check.entity.name).\(check.property)", table: entities.first { $0.name == check.entity.name }!.table,
                          column: check.column, codes: codes(of: check.entity, in: entities))
        }
        return Plan(schema: schema, statements: statements, problems: problems, losses: losses, removals: removals,
                    modelIndexes: modelIndexes, joinMerges: joinMerges, requiredChecks: requiredChecks)
    }

    private func codes(of entity: EntityDescription, in entities: [SQLSchema.Entity]) -> [Int64] {
        entity.selfAndDescendants.compactMap { e in entities.first { $0.name == e.name }?.code }
    }

    /// The statements creating a join table (`paired`: a many-to-many pair's, with both sides' entity
    /// and order columns, and an index for each side's reads), `integer` the database's integer type.
    package static func joinTableStatements(_ table: String, paired: Bool, integer: String) -> [String] {
        let pairColumns = paired ? ", \"source.entity\" \(integer), \"target.position\" \(integer)" : ""
        return ["CREATE TABLE \(quote(table)) (\"source\" \(integer) NOT NULL, \"target\" \(integer) NOT NULL, \"target.entity\" \(integer) NOT NULL, \"position\" \(integer) NOT NULL\(pairColumns))",
                membersIndex(table),
                paired ? inverseMembersIndex(table) : "CREATE INDEX \(quote(table + ".target")) ON \(quote(table)) (\"target\")"]
    }

    static func createJoinTable(_ table: String, paired: Bool = false) -> String {
        joinTableStatements(table, paired: paired, integer: "INTEGER").joined(separator: "; ")
    }

    /// A pair's join table's index for the second side's reads (target, its order, source, source entity).
    package static func inverseMembersIndex(_ table: String) -> String {
        "CREATE INDEX IF NOT EXISTS \(quote(table + ".inverse")) ON \(quote(table)) (\"target\", \"target.position\", \"source\", \"source.entity\")"
    }

    /// Which side of a many-to-many pair a to-many relationship declared by `entity` is: nil when it has no
    /// to-many inverse, or is its own inverse (those keep a table of their own).
    func pairing(of r: RelationshipDescription, declaredBy entity: EntityDescription) -> (isOwner: Bool, ownerKey: String, otherEntity: String, otherName: String)? {
        guard let inverseName = r.inverseName, var declaring = model.entity(named: r.destinationName) else { return nil }
        while !declaring.ownRelationships.contains(where: { $0.name == inverseName }) {
            guard let parent = declaring.parent else { return nil }
            declaring = parent
        }
        guard let inverse = declaring.ownRelationships.first(where: { $0.name == inverseName }), inverse.isToMany, !inverse.isTransient,
              !(declaring.name == entity.name && inverseName == r.name) else { return nil }
        let mine = "\(entity.name).\(r.name)", theirs = "\(declaring.name).\(inverseName)"
        return (mine < theirs, min(mine, theirs), declaring.name, inverseName)
    }

    /// The name of a join table's index of its rows by source: it holds every column a read of a
    /// relationship's members needs (source, position, target, target entity), so loading the members
    /// of many records reads the index alone.
    package static func membersIndexName(_ table: String) -> String { table + ".members" }

    /// `CREATE INDEX` of `membersIndexName` (stores made before it had `<table>.source` on source and
    /// position only: opening one replaces that index with this).
    package static func membersIndex(_ table: String) -> String {
        "CREATE INDEX IF NOT EXISTS \(quote(membersIndexName(table))) ON \(quote(table)) (\"source\", \"position\", \"target\", \"target.entity\")"
    }

    /// The statements that give a store's join tables their members index, dropping the narrower
    /// one stores made before it had (`<table>.source`); `IF EXISTS` / `IF NOT EXISTS` make them no-ops once done.
    package static func joinIndexUpgrade(_ table: String) -> [String] {
        ["DROP INDEX IF EXISTS \(quote(table + ".source"))", membersIndex(table)]
    }

    /// `name` as a quoted SQL identifier (a `"` in it doubled). Called for every column of statements
    /// built per save (a property-level UPDATE), so a name without quotes takes no Foundation call.
    package static func quote(_ name: String) -> String {
        guard name.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + name + "\"" }
        return "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` as a SQL string literal (a `'` in it doubled); as `quote`, text without one takes no Foundation call.
    package static func literal(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "'")) else { return "'" + text + "'" }
        return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    static func sqlType(_ type: AttributeType) -> String {
        switch type {
        case .bool, .int16, .int32, .int64: return "INTEGER"
        case .float, .double, .date: return "REAL"
        case .string, .uri, .decimal: return "TEXT"
        case .binary, .uuid, .transformable: return "BLOB"
        }
    }

    /// `DEFAULT <value>` for a column added to existing rows (the attribute's default, when it has one).
    static func defaultClause(_ a: AttributeDescription) -> String {
        switch SQLiteValueCodec.sqlValue(a.defaultValue, type: a.type) {
        case .null: return ""
        case .integer(let v): return " DEFAULT \(v)"
        case .real(let v): return " DEFAULT \(v)"
        case .text(let v): return " DEFAULT " + literal(v)
        case .blob(let v): return " DEFAULT X'\(v.map { String(format: "%02X", $0) }.joined())'"
        }
    }
}

extension SQLSchemaPlanner.Removal {
    /// The SQL statement of the step, in the syntax SQLite and PostgreSQL share; each store adds what
    /// its database needs around it (SQLite drops a column's indexes first, PostgreSQL a table's key
    /// sequence after it).
    package var statement: String {
        let quote = SQLSchemaPlanner.quote
        switch self {
        case .unlink(let table, let column, let code):
            return "UPDATE \(quote(table)) SET \(quote(column)) = NULL, \(quote(column + ".entity")) = NULL WHERE \(quote(column + ".entity")) = \(code)"
        case .joinRows(let table, let code, let paired):
            return "DELETE FROM \(quote(table)) WHERE \"target.entity\" = \(code)" + (paired ? " OR \"source.entity\" = \(code)" : "")
        case .rows(let table, let code):
            return "DELETE FROM \(quote(table)) WHERE \"Z_ENT\" = \(code)"
        case .column(let table, let column):
            return "ALTER TABLE \(quote(table)) DROP COLUMN \(quote(column))"
        case .table(let table):
            return "DROP TABLE IF EXISTS \(quote(table))"
        }
    }

    /// Rows before columns before tables (a table's rows go before its columns do).
    fileprivate var order: Int {
        switch self {
        case .unlink: return 0
        case .joinRows: return 1
        case .rows: return 2
        case .column: return 3
        case .table: return 4
        }
    }
}

/// What opening a store may do when the model removed entities, attributes or relationships that
/// saved records have values for (a lightweight migration that loses data).
public enum MigrationPolicy: Sendable, Hashable {
    /// Add and rename only; a model that removed something stored is refused with every loss listed,
    /// and the store is left as it was (the default: data is never dropped without being asked).
    case additive
    /// Also drop what the model removed, with its data: columns, join tables, a removed subentity's
    /// records (and the links to them), a removed root entity's table; in the migration's transaction.
    case dropRemoved
}

/// Hands out names unique without regard to case (SQLite identifiers ignore case).
struct NameAllocator {
    private var taken: Set<String>

    init(reserved: [String]) { taken = Set(reserved.map { $0.lowercased() }) }

    func isFree(_ name: String) -> Bool { !taken.contains(name.lowercased()) }

    mutating func take(_ name: String) { taken.insert(name.lowercased()) }

    /// `name`, or `name2`, `name3`… when taken.
    mutating func allocate(_ name: String) -> String {
        var candidate = name
        var number = 2
        while !isFree(candidate) {
            candidate = "\(name)\(number)"
            number += 1
        }
        take(candidate)
        return candidate
    }
}

extension EntityDescription {
    /// The relationship with this name, own or inherited.
    func relationships(named name: String) -> RelationshipDescription? {
        guard let slot = slotsByName[name], case .relationship(let r) = properties[slot] else { return nil }
        return r
    }
}
