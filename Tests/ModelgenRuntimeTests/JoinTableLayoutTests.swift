import CSQLite
import Foundation
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

    /// Writes the fixture (run by hand with MODELGEN_WRITE_JOIN_FIXTURE=1 on the layout to keep).
    @Test func writeTheFixtureWhenAsked() throws {
        guard ProcessInfo.processInfo.environment["MODELGEN_WRITE_JOIN_FIXTURE"] == "1" else { return }
        try? FileManager.default.removeItem(at: Self.fixture)
        let store = try SQLiteStore(url: Self.fixture, model: Self.model)
        try Self.fill(ManagedContainer(model: Self.model, store: store).newContext())
        var db: OpaquePointer?
        sqlite3_open(Self.fixture.path, &db)
        sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE", nil, nil, nil)
        sqlite3_close(db)
    }

    @Test func aStoreWithAJoinTablePerSideOpensAndKeepsEveryLink() throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("mix-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(at: Self.fixture, to: copy)
        let fresh = ManagedContainer(model: Self.model, store: try SQLiteStore(url: FileManager.default.temporaryDirectory.appendingPathComponent("mix-fresh-\(UUID().uuidString).sqlite"), model: Self.model))
        try Self.fill(fresh.newContext())
        let opened = ManagedContainer(model: Self.model, store: try SQLiteStore(url: copy, model: Self.model))
        #expect(try Self.links(opened) == Self.links(fresh))
    }
}
