import Foundation
import Testing
@testable import ModelgenRuntime

final class CatalogArtist: ManagedObject {
    @Managed(slot: 0) var name: String
    @Managed(slot: 1) var albums: Set<CatalogAlbum>
}

final class CatalogAlbum: ManagedObject {
    @Managed(slot: 0) var title: String
    @Managed(slot: 1) var year: Int64
    @Managed(slot: 2) var rating: Double?
    @Managed(slot: 3) var notes: String?
    @Managed(slot: 4) var cover: Data?
    @Managed(slot: 5) var artist: CatalogArtist?
    @Managed(slot: 6) var tracks: [CatalogTrack]
}

final class CatalogTrack: ManagedObject {
    @Managed(slot: 0) var name: String
    @Managed(slot: 1) var seconds: Int64
    @Managed(slot: 2) var album: CatalogAlbum?
}

/// Partial objects (`propertiesToFetch`) on a record catalog of our own: albums with a blob, optional
/// values, a to-one artist and ordered tracks. The SQL store reads only the named columns; every
/// other value loads for the whole fetch with one query when first needed; edits, validation,
/// deletes, merges and saves see whole objects; the in-memory store answers with whole objects.
@Suite struct PartialObjectTests {
    static let model = try! ManagedObjectModel(name: "Catalog", entities: [
        EntityDescription("Artist", class: CatalogArtist.self, attributes: [AttributeDescription("name", .string)],
                          relationships: [RelationshipDescription("albums", destination: "Album", inverse: "artist", toMany: true)]),
        EntityDescription("Album", class: CatalogAlbum.self, attributes: [
            AttributeDescription("title", .string), AttributeDescription("year", .int64, minimum: 1900),
            AttributeDescription("rating", .double, optional: true), AttributeDescription("notes", .string, optional: true),
            AttributeDescription("cover", .binary, optional: true),
        ], relationships: [
            RelationshipDescription("artist", destination: "Artist", inverse: "albums"),
            RelationshipDescription("tracks", destination: "Track", inverse: "album", toMany: true, ordered: true, deleteRule: .cascade),
        ]),
        EntityDescription("Track", class: CatalogTrack.self, attributes: [AttributeDescription("name", .string), AttributeDescription("seconds", .int64)],
                          relationships: [RelationshipDescription("album", destination: "Album", inverse: "tracks")]),
    ])

    /// 5 artists, 60 albums (every third without a rating, every fourth with notes), 3 tracks each.
    func catalog(_ kind: String, counter: StatementCounter? = nil) throws -> (ManagedContainer, URL?) {
        let (container, url) = try emptyContainer(kind, model: Self.model, counter: counter)
        let context = container.newContext()
        let artists = (0..<5).map { index in CatalogArtist(context: context).with { $0.name = "Artist \(index)" } }
        for index in 0..<60 {
            let album = CatalogAlbum(context: context)
            album.title = String(format: "Album %02d", index)
            album.year = Int64(1960 + index)
            album.rating = index % 3 == 0 ? nil : Double(index % 5) + 0.5
            album.notes = index % 4 == 0 ? "notes \(index)" : nil
            album.cover = Data(repeating: UInt8(index), count: 64)
            album.artist = artists[index % 5]
            album.tracks = (0..<3).map { number in
                CatalogTrack(context: context).with { $0.name = "\(album.title) / \(number)"; $0.seconds = Int64(100 + number) }
            }
        }
        try context.save()
        return (container, url)
    }

    /// The request of these tests: albums from 1970 by title, their titles and artists only.
    func titlesAndArtists() -> FetchRequest<CatalogAlbum> {
        var request = try! FetchRequest<CatalogAlbum>(entityName: "Album", predicate: "year >= 1970", sortDescriptors: [SortDescriptor("title")])
        request.propertiesToFetch = ["title", "artist"]
        return request
    }

    /// Every stored value of an album, as a line to compare.
    func line(_ album: CatalogAlbum) -> String {
        "\(album.title) \(album.year) \(album.rating.map { "\($0)" } ?? "-") \(album.notes ?? "-") \(album.cover?.first.map { "\($0)" } ?? "-") \(album.artist?.name ?? "-") \(album.tracks.map(\.name))"
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func aPartialFetchReadsItsPropertiesAndLoadsTheRestOnceForTheWholeFetch(_ kind: String) throws {
        let counter = StatementCounter()
        let (container, url) = try catalog(kind, counter: counter)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let reader = container.newContext()
        let whole = try reader.fetch(titlesAndArtists().withoutPropertiesToFetch())
        let context = container.newContext()
        let albums = try context.fetch(titlesAndArtists())
        #expect(albums.map(\.objectID) == whole.map(\.objectID))
        #expect(albums.count == 50)
        // The SQL store loads them in part; the in-memory store has nothing to save by it.
        #expect(albums.allSatisfy { $0.isPartial } == (kind == "sqlite"), "\(kind)")
        #expect(albums.allSatisfy { !$0.isFault }, "\(kind)")
        let before = counter.count
        #expect(albums.map(\.title) == whole.map(\.title))
        #expect(albums.map { $0.artist?.objectID } == whole.map { $0.artist?.objectID })
        #expect(counter.count == before, "\(kind): the fetched properties read without a query")
        #expect(albums.allSatisfy { $0.isPartial } == (kind == "sqlite"), "\(kind): reading them loads nothing more")
        // The first value the fetch left out loads the rest of every album of the fetch with one query.
        #expect(albums[7].notes == whole[7].notes)
        #expect(!albums[7].isPartial)
        #expect(counter.count == before + (kind == "sqlite" ? 1 : 0), "\(kind): one query for the fetch's other values")
        let afterRest = counter.count
        #expect(albums.map(\.year) == whole.map(\.year))
        #expect(albums.map(\.rating) == whole.map(\.rating))
        #expect(albums.map(\.cover) == whole.map(\.cover))
        #expect(counter.count == afterRest, "\(kind): the other albums load from the rows read with the first")
        #expect(albums.map(line) == whole.map(line))
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func aPartialObjectIsEditedValidatedDeletedAndSavedAsAWholeOne(_ kind: String) throws {
        let (container, url) = try catalog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let context = container.newContext()
        let albums = try context.fetch(titlesAndArtists())
        // A change of a value the fetch did not read, of one it read, and a delete (cascading to tracks).
        albums[0].year = 2001
        albums[1].title = "Renamed"
        context.delete(albums[2])
        #expect(albums[0].changedValues().keys.sorted() == ["year"])
        #expect(albums[1].changedValues().keys.sorted() == ["title"])
        try context.save()
        // Nothing the partial objects did not read was lost or written over.
        let reader = container.newContext()
        let saved = try reader.fetch(titlesAndArtists().withoutPropertiesToFetch())
        #expect(saved.count == 49)
        #expect(saved.first { $0.title == "Album 10" }.map(line) == "Album 10 2001 0.5 - 10 Artist 0 [\"Album 10 / 0\", \"Album 10 / 1\", \"Album 10 / 2\"]")
        #expect(saved.first { $0.title == "Renamed" }.map(line) == "Renamed 1971 1.5 - 11 Artist 1 [\"Album 11 / 0\", \"Album 11 / 1\", \"Album 11 / 2\"]")
        #expect(try reader.count(for: FetchRequest<CatalogTrack>(entityName: "Track", predicate: "name BEGINSWITH 'Album 12 '")) == 0)
        // Validation sees the whole object: a value out of range is refused, whichever slot it is in.
        let checking = container.newContext()
        let more = try checking.fetch(titlesAndArtists())
        more[3].year = 1800
        #expect(throws: ValidationError.self) { try checking.save() }
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func anotherSaveMergedOrARefreshDropsAPartialObjectsValues(_ kind: String) async throws {
        let (container, url) = try catalog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let context = container.newContext()
        let albums = try context.fetch(titlesAndArtists())
        #expect(albums[0].title == "Album 10")
        var changes = container.changes.makeAsyncIterator()
        let writer = container.newContext()
        let same = try writer.existingObject(with: albums[0].objectID, as: CatalogAlbum.self)
        same.title = "Album 10 (remastered)"
        let other = try writer.existingObject(with: albums[1].objectID, as: CatalogAlbum.self)
        other.notes = "new notes"
        try writer.save()
        context.mergeChanges(try #require(await changes.next()))
        #expect(albums[0].title == "Album 10 (remastered)", "\(kind): a merged save refreshes what the partial object read")
        #expect(albums[1].notes == "new notes", "\(kind)")
        context.refresh(albums[2], mergeChanges: false)
        #expect(albums[2].isFault || kind == "in-memory" && !albums[2].isPartial)
        #expect(albums[2].title == "Album 12")
    }

    @Test(arguments: ["in-memory", "sqlite"])
    func prefetchedTracksOfPartialObjectsLoadWithoutTheirAlbums(_ kind: String) throws {
        let counter = StatementCounter()
        let (container, url) = try catalog(kind, counter: counter)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let context = container.newContext()
        var request = titlesAndArtists()
        request.relationshipKeyPathsForPrefetching = ["tracks"]
        let albums = try context.fetch(request)
        let before = counter.count
        #expect(albums.map { $0.tracks.map(\.seconds) } == Array(repeating: [100, 101, 102], count: 50))
        #expect(albums[0].tracks.map(\.name) == ["Album 10 / 0", "Album 10 / 1", "Album 10 / 2"])
        #expect(counter.count == before, "\(kind): the tracks came with the fetch")
        #expect(albums.allSatisfy { $0.isPartial } == (kind == "sqlite"), "\(kind): the albums stay partial")
        // A track's album is the partial object itself.
        #expect(albums[4].tracks[1].album === albums[4])
    }

    /// Writers at once beside a context holding partial objects whose other values it read before the
    /// writers saved: its edit of a value it did not load (saved under `.mergeByPropertyObjectTrump`)
    /// keeps every writer's change of the others.
    @Test(arguments: ["in-memory", "sqlite"])
    func concurrentWritersBesideAPartialObjectLoseNothing(_ kind: String) async throws {
        let (container, url) = try catalog(kind)
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let context = container.newContext()
        context.mergePolicy = .mergeByPropertyObjectTrump
        let albums = try context.fetch(titlesAndArtists())
        let ids = albums.map(\.objectID)
        // The rest of the fetch's rows are read now, before the writers: the others load from them later.
        #expect(albums[0].year == 1970)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<2 {
                group.addTask {
                    try await container.performBackgroundTask { background in
                        background.mergePolicy = .mergeByPropertyObjectTrump
                        for (index, id) in ids.enumerated() where index % 2 == writer {
                            let album = try background.existingObject(with: id, as: CatalogAlbum.self)
                            album.year += 1
                            album.rating = Double(writer) + 0.25
                        }
                        try background.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        for album in albums { album.notes = "checked" }
        try context.save()
        let reader = container.newContext()
        let saved = try reader.fetch(titlesAndArtists().withoutPropertiesToFetch())
        #expect(saved.map(\.notes) == Array(repeating: "checked", count: 50), "\(kind)")
        #expect(saved.enumerated().allSatisfy { index, album in album.rating == Double(index % 2) + 0.25 }, "\(kind)")
        #expect(saved.map(\.year) == (10..<60).map { Int64(1961 + $0) }, "\(kind): every writer's year kept")
    }

    @Test func propertiesToFetchNameStoredAttributesAndToOneRelationships() throws {
        let (container, url) = try catalog("sqlite")
        defer { url.map { try? FileManager.default.removeItem(at: $0) } }
        let context = container.newContext()
        for (names, message) in [(["title", "colour"], "colour"), (["tracks"], "to-many")] {
            var request = titlesAndArtists()
            request.propertiesToFetch = names
            #expect { try context.fetch(request) } throws: { "\($0)".contains(message) }
        }
        // A serializable context loads whole objects: its reads are checked at their versions.
        let serializable = container.newContext()
        serializable.saveIsolation = .serializable
        #expect(try serializable.fetch(titlesAndArtists()).allSatisfy { !$0.isPartial && !$0.isFault })
        // Unsaved changes of the entity: whole objects, the changes taken into account.
        let changed = container.newContext()
        let first = try changed.fetch(titlesAndArtists())[0]
        first.title = "Zzz"
        let again = try changed.fetch(titlesAndArtists())
        #expect(again.last === first && again.allSatisfy { !$0.isPartial })
    }
}

extension FetchRequest {
    /// The same request for whole objects.
    func withoutPropertiesToFetch() -> FetchRequest {
        var request = self
        request.propertiesToFetch = nil
        return request
    }
}
