import CSQLite
import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

final class MixPlaylist: ManagedObject {
    @Managed(slot: 0) var name: String
    @Managed(slot: 1) var songs: [MixSong]
}

final class MixSong: ManagedObject {
    @Managed(slot: 0) var title: String
    @Managed(slot: 1) var playlists: Set<MixPlaylist>
    @Managed(slot: 2) var similar: Set<MixSong>
}

/// Many-to-many relationships in the SQL stores (issue 42): an ordered one (a playlist's songs)
/// against an unordered inverse (a song's playlists), and one that is its own inverse (similar songs).
/// `Tests/Fixtures/Stores/mix-two-join-tables.sqlite` was written by the store as it was before one join
/// table per pair (2026-11-27, the layout of f8c2028: a table per side): opening it must keep every link and order.
@Suite(.serialized) struct JoinTableLayoutTests {
    static let model = try! ManagedObjectModel(name: "Mix", entities: [
        EntityDescription("Playlist", class: MixPlaylist.self, attributes: [AttributeDescription("name", .string)],
                          relationships: [RelationshipDescription("songs", destination: "Song", inverse: "playlists", toMany: true, ordered: true)]),
        EntityDescription("Song", class: MixSong.self, attributes: [AttributeDescription("title", .string)],
                          relationships: [RelationshipDescription("playlists", destination: "Playlist", inverse: "songs", toMany: true),
                                          RelationshipDescription("similar", destination: "Song", inverse: "similar", toMany: true)]),
    ])

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Stores/mix-two-join-tables.sqlite")

    /// Four playlists of songs in their own orders, songs similar to their neighbours.
    static func fill(_ context: ManagedObjectContext) throws {
        let songs = (0..<12).map { index in
            let song = MixSong(context: context)
            song.title = "Song \(index)"
            return song
        }
        for (index, song) in songs.enumerated() where index > 0 { song.similar.insert(songs[index - 1]) }
        for p in 0..<4 {
            let playlist = MixPlaylist(context: context)
            playlist.name = "List \(p)"
            playlist.songs = (0..<6).map { songs[(p * 5 + $0 * (p + 1)) % 12] }
        }
        try context.save()
    }

    /// Every link as text: each playlist's songs in order, each song's playlists and similar songs.
    static func links(_ container: ManagedContainer) throws -> [String] {
        let context = container.newContext()
        let playlists = try context.fetch(FetchRequest<MixPlaylist>(entityName: "Playlist", sortDescriptors: [SortDescriptor("name")]))
        let songs = try context.fetch(FetchRequest<MixSong>(entityName: "Song", sortDescriptors: [SortDescriptor("title")]))
        return playlists.map { "\($0.name): \($0.songs.map(\.title))" }
            + songs.map { "\($0.title): \($0.playlists.map(\.name).sorted()) \($0.similar.map(\.title).sorted())" }
    }

    @Test func aStoreWithAJoinTablePerSideOpensAndKeepsEveryLink() throws {
        let copy = scratchDirectory.appendingPathComponent("mix-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(at: Self.fixture, to: copy)
        let fresh = ManagedContainer(model: Self.model, store: try SQLiteStore(url: scratchDirectory.appendingPathComponent("mix-fresh-\(UUID().uuidString).sqlite"), model: Self.model))
        try Self.fill(fresh.newContext())
        #expect(Self.tables(copy.path).isSuperset(of: ["Playlist.songs", "Song.playlists", "Song.similar"]))   // format 1: a table per side
        let opened = ManagedContainer(model: Self.model, store: try SQLiteStore(url: copy, model: Self.model))
        #expect(try Self.links(opened) == Self.links(fresh))
        // Format 2: the pair's links in one table, read from either side; a relationship that is its own inverse keeps its table.
        let tables = Self.tables(copy.path)
        #expect(tables.contains("Playlist.songs") && !tables.contains("Song.playlists") && tables.contains("Song.similar"), "\(tables)")
        // Saves go on from either side, and a second opening changes nothing.
        let context = opened.newContext()
        func song(_ title: String) throws -> MixSong {
            try #require(try context.fetch(FetchRequest<MixSong>(entityName: "Song", predicate: "title == $T", variables: ["T": title])).first)
        }
        let list = try #require(try context.fetch(FetchRequest<MixPlaylist>(entityName: "Playlist", predicate: "name == 'List 0'")).first)
        list.songs.insert(try song("Song 9"), at: 0)      // from the ordered side, first
        try song("Song 11").playlists.insert(list)       // from the other side: last in the list
        try context.save()
        let again = ManagedContainer(model: Self.model, store: try SQLiteStore(url: copy, model: Self.model))
        let check = try Self.links(again)
        #expect(check[0] == "List 0: [\"Song 9\", \"Song 0\", \"Song 1\", \"Song 2\", \"Song 3\", \"Song 4\", \"Song 5\", \"Song 11\"]", "\(check[0])")
        #expect(check.contains("Song 11: [\"List 0\", \"List 1\", \"List 3\"] [\"Song 10\"]"), "\(check)")
    }

    static func tables(_ path: String) -> Set<String> { sqliteMasterNames(path, type: "table") }
}

final class RenamedList: ManagedObject {}
final class RenamedTrack: ManagedObject {}

/// Entities and relationships renamed with `renamingIdentifier` (issue 39): a store saved with the
/// former names opens with the new ones and keeps every record and link, to-one, ordered and
/// many-to-many alike.
@Suite struct RenamingTests {
    @Test func renamedEntitiesAndRelationshipsKeepTheirRecordsAndLinks() throws {
        let url = scratchDirectory.appendingPathComponent("renamed-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let before = JoinTableLayoutTests.model
        let container = ManagedContainer(model: before, store: try SQLiteStore(url: url, model: before))
        try JoinTableLayoutTests.fill(container.newContext())
        let expected = try JoinTableLayoutTests.links(container)
        // Playlist becomes Mixtape, its songs become tracks, a song's playlists its mixtapes.
        let after = try ManagedObjectModel(name: "Mix", entities: [
            EntityDescription("Mixtape", class: RenamedList.self, renamingIdentifier: "Playlist", attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("tracks", destination: "Song", inverse: "mixtapes", toMany: true, ordered: true, renamingIdentifier: "songs")]),
            EntityDescription("Song", class: RenamedTrack.self, attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("mixtapes", destination: "Mixtape", inverse: "tracks", toMany: true, renamingIdentifier: "playlists"),
                                              RelationshipDescription("similar", destination: "Song", inverse: "similar", toMany: true)]),
        ])
        let renamed = ManagedContainer(model: after, store: try SQLiteStore(url: url, model: after))
        let context = renamed.newContext()
        let lists = try context.fetch(FetchRequest<ManagedObject>(entityName: "Mixtape", sortDescriptors: [SortDescriptor("name")]))
        let songs = try context.fetch(FetchRequest<ManagedObject>(entityName: "Song", sortDescriptors: [SortDescriptor("title")]))
        func titles(_ value: Any?, _ key: String) throws -> [String] { try (value as? [ManagedObject] ?? []).map { try $0.value(forKey: key) as! String } }
        let links = try lists.map { "\(try $0.value(forKey: "name") as! String): \(try titles($0.value(forKey: "tracks"), "title"))" }
            + songs.map { "\(try $0.value(forKey: "title") as! String): \(try titles($0.value(forKey: "mixtapes"), "name").sorted()) \(try titles($0.value(forKey: "similar"), "title").sorted())" }
        #expect(links == expected)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Mixtape")) == 4)
    }
}

/// The names of a SQLite file's tables or indexes (`type`), read with the C API.
func sqliteMasterNames(_ path: String, type: String) -> Set<String> {
    sqliteStrings(path, "SELECT name FROM sqlite_master WHERE type = '\(type)'")
}

/// The first column of what a query returns from a SQLite file, as text, read with the C API.
func sqliteStrings(_ path: String, _ query: String) -> Set<String> {
    var db: OpaquePointer?
    sqlite3_open(path, &db)
    defer { sqlite3_close(db) }
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, query, -1, &statement, nil)
    var names: Set<String> = []
    while sqlite3_step(statement) == SQLITE_ROW { names.insert(String(cString: sqlite3_column_text(statement, 0))) }
    sqlite3_finalize(statement)
    return names
}
