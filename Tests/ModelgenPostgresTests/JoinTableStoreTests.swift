#if PostgreSQL
import Foundation
import ModelgenPostgres
import ModelgenRuntime
import PostgresNIO
import Testing

final class MixList: ManagedObject {}
final class MixTrack: ManagedObject {}

/// One join table per many-to-many pair on PostgreSQL (issue 42): a store written with a table per
/// side (format 1, made here from a new store by the statements that undo the merge) opens, merges
/// the pair's tables into one and keeps every link and both sides' orders; saves go on from either side.
@Suite(.enabled(if: StoreKind.postgresURL != nil, "needs MODELGEN_POSTGRES_URL (make test-postgres)"))
struct JoinTableStoreTests {
    static let model = try! ManagedObjectModel(name: "Mix", entities: [
        EntityDescription("List", class: MixList.self, attributes: [AttributeDescription("name", .string)],
                          relationships: [RelationshipDescription("tracks", destination: "Track", inverse: "lists", toMany: true, ordered: true)]),
        EntityDescription("Track", class: MixTrack.self, attributes: [AttributeDescription("title", .string)],
                          relationships: [RelationshipDescription("lists", destination: "List", inverse: "tracks", toMany: true)]),
    ])

    /// Each list's tracks in order, each track's lists.
    func links(_ container: ManagedContainer) throws -> [String] {
        let context = container.newContext()
        let lists = try context.fetch(FetchRequest<ManagedObject>(entityName: "List", sortDescriptors: [SortDescriptor("name")]))
        let tracks = try context.fetch(FetchRequest<ManagedObject>(entityName: "Track", sortDescriptors: [SortDescriptor("title")]))
        func names(_ objects: Any?, _ key: String) throws -> [String] { try (objects as? [ManagedObject] ?? []).map { try $0.value(forKey: key) as! String } }
        return try lists.map { "\(try $0.value(forKey: "name") as! String): \(try names($0.value(forKey: "tracks"), "title"))" }
            + tracks.map { "\(try $0.value(forKey: "title") as! String): \(try names($0.value(forKey: "lists"), "name").sorted())" }
    }

    /// A store in a new schema with 8 tracks and 3 lists of 5 (list `l`'s `n`th track is `track(l, n)`),
    /// saved, and a connection of its own to the server for statements written around the store.
    func seededMix(_ track: (Int, Int) -> Int) throws -> (container: ManagedContainer, configuration: PostgreSQLConfiguration, tracks: [ManagedObject],
                                                        connection: PostgresConnection, logger: Logger) {
        var configuration = try PostgreSQLConfiguration(url: try #require(StoreKind.postgresURL))
        configuration.schema = "joins_" + UUID().uuidString.prefix(8).lowercased()
        let container = ManagedContainer(model: Self.model, store: try PostgreSQLStore(model: Self.model, configuration: configuration))
        let context = container.newContext()
        let tracks = try (0..<8).map { index -> ManagedObject in
            let object = try context.insertObject(entityName: "Track")
            try object.setValue("Track \(index)", forKey: "title")
            return object
        }
        for l in 0..<3 {
            let list = try context.insertObject(entityName: "List")
            try list.setValue("List \(l)", forKey: "name")
            try list.setValue((0..<5).map { tracks[track(l, $0)] }, forKey: "tracks")
        }
        try context.save()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let connection = try PostgresConnection.connect(on: PostgresClient.defaultEventLoopGroup.any(), configuration: configuration.connection, id: 9, logger: logger).wait()
        return (container, configuration, tracks, connection, logger)
    }

    @Test func aStoreWithATablePerSideIsMergedAndKeepsEveryLink() throws {
        let (container, configuration, _, connection, logger) = try seededMix { l, n in (l * 3 + n * (l + 1)) % 8 }
        defer { try? connection.close().wait() }
        let before = try links(container)

        // The layout of format 1: the pair's links in two tables, the metadata without join columns.
        func run(_ sql: String) throws { _ = try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait() }
        func rows(_ sql: String) throws -> [PostgresRow] { try connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait().rows }
        let schema = "\"\(configuration.schema)\""
        #expect(try rows("SELECT 1 FROM information_schema.tables WHERE table_schema = '\(configuration.schema)' AND table_name = 'Track.lists'").isEmpty)
        try run("CREATE TABLE \(schema).\"Track.lists\" (\"source\" bigint NOT NULL, \"target\" bigint NOT NULL, \"target.entity\" bigint NOT NULL, \"position\" bigint NOT NULL)")
        try run("INSERT INTO \(schema).\"Track.lists\" SELECT \"target\", \"source\", \"source.entity\", \"target.position\" FROM \(schema).\"List.tracks\"")
        try run("ALTER TABLE \(schema).\"List.tracks\" DROP COLUMN \"source.entity\", DROP COLUMN \"target.position\"")
        let json = try rows("SELECT \"value\" FROM \(schema).\"modelgen.metadata\" WHERE \"key\" = 'schema'")[0].makeRandomAccess()[0].decode(String.self)
        var recorded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
        recorded["formatVersion"] = 1
        recorded["entities"] = (recorded["entities"] as! [[String: Any]]).map { entity -> [String: Any] in
            var entity = entity
            entity["relationships"] = (entity["relationships"] as! [[String: Any]]).map { relationship -> [String: Any] in
                var relationship = relationship
                if relationship["name"] as? String == "lists" { relationship["joinTable"] = "Track.lists" }
                relationship["joinColumns"] = nil
                return relationship
            }
            return entity
        }
        let legacy = String(decoding: try JSONSerialization.data(withJSONObject: recorded, options: [.sortedKeys]), as: UTF8.self)
        try run("UPDATE \(schema).\"modelgen.metadata\" SET \"value\" = '\(legacy.replacingOccurrences(of: "'", with: "''"))' WHERE \"key\" = 'schema'")

        // Opened: merged into one table, every link and order kept; saves go on from either side.
        let opened = ManagedContainer(model: Self.model, store: try PostgreSQLStore(model: Self.model, configuration: configuration))
        #expect(try links(opened) == before)
        #expect(try rows("SELECT 1 FROM information_schema.tables WHERE table_schema = '\(configuration.schema)' AND table_name = 'Track.lists'").isEmpty)
        let editing = opened.newContext()
        let list = try #require(try editing.fetch(try FetchRequest<ManagedObject>(entityName: "List", predicate: "name == 'List 0'")).first)
        let last = try #require(try editing.fetch(try FetchRequest<ManagedObject>(entityName: "Track", predicate: "title == 'Track 7'")).first)
        var lists = try last.value(forKey: "lists") as! [ManagedObject]
        lists.append(list)
        try last.setValue(lists, forKey: "lists")
        try editing.save()
        let after = try links(ManagedContainer(model: Self.model, store: try PostgreSQLStore(model: Self.model, configuration: configuration)))
        #expect(after[0].hasSuffix("\"Track 7\"]") && after.contains { $0.hasPrefix("Track 7: [\"List 0\"") }, "\(after)")
        try run("DROP SCHEMA \(schema) CASCADE")
    }

    /// A prefetch through the join table reads the links joined to the members' rows in one statement:
    /// a track shared by several lists comes once per link and is one object, every list in its order,
    /// as reading the relationships one by one gives; a member already loaded keeps its unsaved change;
    /// a link whose record is gone (deleted around the store) is named, as a fault that cannot load.
    @Test func aPrefetchThroughTheJoinTableLoadsSharedMembersOnceAndNamesAGoneOne() throws {
        let (container, configuration, tracks, connection, logger) = try seededMix { l, n in (7 - l * 2 - n * (2 * l + 1) + 40) % 8 }
        defer { try? connection.close().wait() }
        let expected = try links(container)

        let context = container.newContext()
        let edited = try #require(try context.fetch(try FetchRequest<ManagedObject>(entityName: "Track", predicate: "title == 'Track 3'")).first)
        try edited.setValue("Track 3 (edited)", forKey: "title")
        var request = FetchRequest<ManagedObject>(entityName: "List", sortDescriptors: [SortDescriptor("name")])
        request.relationshipKeyPathsForPrefetching = ["tracks"]
        let lists = try context.fetch(request)
        let members = try lists.map { try $0.value(forKey: "tracks") as! [ManagedObject] }
        #expect(members.allSatisfy { $0.count == 5 && $0.allSatisfy { !$0.isFault } })
        let objects: Set<ObjectIdentifier> = Set(members.joined().map { ObjectIdentifier($0) })
        let ids: Set<ObjectID> = Set(members.joined().map(\.objectID))
        #expect(objects.count == ids.count && ids.count < 15, "a shared track is one object")
        #expect(try edited.value(forKey: "title") as? String == "Track 3 (edited)" && edited.hasChanges)
        context.rollback()
        #expect(try links(container) == expected)
        for (list, listed) in zip(lists, members) {
            let name = try list.value(forKey: "name") as! String
            let titles = try listed.map { try $0.value(forKey: "title") as! String }
            #expect(expected.contains("\(name): \(titles)"), "\(name): \(titles) against \(expected)")
        }

        // A track's row deleted around the store, its links left: the prefetch names it.
        let schema = "\"\(configuration.schema)\""
        let gone = tracks[7].objectID
        _ = try connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(schema).\"Track\" WHERE \"Z_PK\" = \(gone.key)"), logger: logger).wait()
        let fresh = container.newContext()
        #expect(throws: RuntimeError.objectNotFound(gone)) { try fresh.fetch(request) }
        let listedTracks = try fresh.fetch(FetchRequest<ManagedObject>(entityName: "List")).flatMap { try $0.value(forKey: "tracks") as! [ManagedObject] }
        #expect(listedTracks.contains { $0.objectID == gone } && listedTracks.count == 15)
        #expect(listedTracks.allSatisfy { $0.objectID == gone || !$0.isFault }, "the other tracks were loaded all the same")
        _ = try connection.query(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"), logger: logger).wait()
    }

    /// Entities and relationships renamed with `renamingIdentifier` keep their records and links on
    /// PostgreSQL too (issue 39): List becomes Tape, its tracks its songs, a track's lists its tapes.
    @Test func renamedEntitiesAndRelationshipsKeepTheirLinks() throws {
        let url = try #require(StoreKind.postgresURL)
        var configuration = try PostgreSQLConfiguration(url: url)
        configuration.schema = "renames_" + UUID().uuidString.prefix(8).lowercased()
        let container = ManagedContainer(model: Self.model, store: try PostgreSQLStore(model: Self.model, configuration: configuration))
        let context = container.newContext()
        var tracks: [ManagedObject] = []
        for index in 0..<4 {
            let track = try context.insertObject(entityName: "Track")
            try track.setValue("Track \(index)", forKey: "title")
            tracks.append(track)
        }
        let list = try context.insertObject(entityName: "List")
        try list.setValue("Tape", forKey: "name")
        try list.setValue([tracks[2], tracks[0], tracks[3]], forKey: "tracks")
        try context.save()
        let renamed = try ManagedObjectModel(name: "Mix", entities: [
            EntityDescription("Tape", class: MixList.self, renamingIdentifier: "List", attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("songs", destination: "Track", inverse: "tapes", toMany: true, ordered: true, renamingIdentifier: "tracks")]),
            EntityDescription("Track", class: MixTrack.self, attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("tapes", destination: "Tape", inverse: "songs", toMany: true, renamingIdentifier: "lists")]),
        ])
        let reopened = ManagedContainer(model: renamed, store: try PostgreSQLStore(model: renamed, configuration: configuration))
        let reader = reopened.newContext()
        let tape = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Tape")).first)
        let songs = try (tape.value(forKey: "songs") as! [ManagedObject]).map { try $0.value(forKey: "title") as! String }
        #expect(songs == ["Track 2", "Track 0", "Track 3"])
        let track = try #require(try reader.fetch(try FetchRequest<ManagedObject>(entityName: "Track", predicate: "title == 'Track 3'")).first)
        #expect((try track.value(forKey: "tapes") as? [ManagedObject])?.count == 1)
    }
}
#endif
