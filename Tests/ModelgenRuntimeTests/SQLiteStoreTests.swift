import Foundation
import TestScratch
import ModelgenPredicate
import Synchronization
import Testing
@testable import ModelgenRuntime

/// A new SQLite store whose binaries of 1 KiB and more go to external files, and its container.
func storeWithExternalFiles() throws -> (SQLiteStore, ManagedContainer) {
    let url = try temporaryDirectory().appendingPathComponent("external.sqlite")
    let store = try SQLiteStore(url: url, model: BlogModel.model, externalStorageThreshold: 1024)
    return (store, ManagedContainer(model: BlogModel.model, store: store))
}

/// The names of a store's external files.
func externalFiles(of store: SQLiteStore) -> Set<String> {
    Set((try? FileManager.default.contentsOfDirectory(atPath: store.externalDirectory.path)) ?? [])
}

/// The same data in any store: three people, a tag, five posts with likes 0…200, comments, members.
func seedBlog(_ container: ManagedContainer) throws {
    let context = container.newContext()
    let ann = makeAuthor(context, "Ann"), bob = makeAuthor(context, "Bob")
    ann.bio = "Ünïcode bio"
    let reader = Reader(context: context)
    reader.firstName = "Rea"; reader.lastName = "Der"; reader.email = "r@x.y"; reader.createdAt = Date(timeIntervalSinceReferenceDate: 5)
    let swift = Tag(context: context), go = Tag(context: context)
    swift.name = "swift"; go.name = "go"
    for (index, likes) in [0, 50, 100, 150, 200].enumerated() {
        let post = Post(context: context, title: index == 1 ? "Café \(index)" : "Post \(index)", author: index % 2 == 0 ? ann : bob)
        post.likes = Int64(likes)
        post.score = Decimal(string: "\(index).25")!
        post.publishedAt = index == 4 ? nil : Date(timeIntervalSinceReferenceDate: Double(index) * 1000)
        post.link = URL(string: "https://example.com/\(index)")
        if index >= 3 { post.addToTags(swift) }
        if index == 4 { post.addToTags(go) }
        if index < 2 {
            let comment = Comment(context: context)
            comment.text = "comment on \(index)"
            comment.postedAt = Date(timeIntervalSinceReferenceDate: 10)
            comment.post = post
            comment.reader = reader
        }
    }
    try context.save()
}

@Suite struct SQLiteStoreTests {
    @Test func everyValueAndRelationshipSurvivesReopening() throws {
        let directory = try temporaryDirectory()
        let url = directory.appendingPathComponent("Blog.sqlite")
        let instant = Date(timeIntervalSinceReferenceDate: 123_456.789)
        var ids: [ObjectID] = []
        do {
            let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(url))
            let context = container.newContext()
            let author = makeAuthor(context)
            author.createdAt = instant
            author.timeZoneName = "Asia/Tokyo"
            author.avatar = Data([0, 1, 2, 255])
            author.rating = 4
            let first = Post(context: context, title: "First", author: author)
            let second = Post(context: context, title: "Second", author: author)
            author.posts = [second, first]          // ordered: Second before First
            first.status = .published
            first.score = Decimal(string: "12.345678901234567890")!
            first.link = URL(string: "https://example.com/a?b=c")
            let tag = Tag(context: context)
            tag.name = "swift"
            first.addToTags(tag)
            second.addToTags(tag)
            let canvas = Canvas(context: context)
            canvas.title = "c"
            canvas.color = RGBAColor(r: 0.1, g: 0.2, b: 0.3, a: 1)
            let ann = Member(context: context), bob = Member(context: context), cy = Member(context: context)
            ann.name = "Ann"; bob.name = "Bob"; cy.name = "Cy"
            ann.friends = [bob, cy]          // its own inverse: bob and cy list ann
            ann.spouse = bob
            try context.save()
            ids = [author.objectID, first.objectID]
            #expect(ids.allSatisfy { !$0.isTemporaryID })
        }
        let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(url))
        let context = container.newContext()
        let author = try #require(try context.existingObject(with: ids[0]) as? Author)
        #expect(author.createdAt == instant)
        #expect(author.timeZoneName == "Asia/Tokyo")
        #expect(author.avatar == Data([0, 1, 2, 255]))
        #expect(author.rating == 4)
        #expect(author.posts.map(\.title) == ["Second", "First"])
        let first = try #require(author.posts.last)
        #expect(first.objectID == ids[1])
        #expect(first.status == .published)
        #expect(first.score == Decimal(string: "12.345678901234567890")!)
        #expect(first.link == URL(string: "https://example.com/a?b=c"))
        #expect(first.commentCount == 0 && first.searchTitle == "first")
        #expect(first.tags.map(\.name) == ["swift"])
        #expect(first.tags.first?.posts.count == 2)
        let canvas = try #require(try context.fetch(FetchRequest<Canvas>(entityName: "Canvas")).first)
        #expect(canvas.color == RGBAColor(r: 0.1, g: 0.2, b: 0.3, a: 1))
        let members = try context.fetch(FetchRequest<Member>(entityName: "Member", sortDescriptors: [SortDescriptor("name")]))
        #expect(members.map { $0.friends.map(\.name).sorted() } == [["Bob", "Cy"], ["Ann"], ["Ann"]])
        #expect(members[0].spouse === members[1] && members[1].spouse === members[0])
        // Uniquing: one object per record per context.
        #expect(try context.existingObject(with: ids[1]) === first)
    }

    /// Each predicate runs as SQL and gives what the in-memory store gives on the same data.
    static let predicates: [String] = [
        "likes >= 100", "likes < 100 AND NOT likes == 0", "likes BETWEEN {50, 150}", "likes IN {0, 200, 7}",
        "likes BETWEEN {$LOW, $HIGH}", "likes IN {$MIN, 0, $HIGH}",
        "title BEGINSWITH 'Post'", "title ENDSWITH '3'", "title CONTAINS[c] 'pOsT'", "title LIKE 'P*t ?'",
        "title MATCHES 'Post [0-2]'", "title ==[cd] 'cafe 1'", "title IN[c] {'post 0', 'POST 2'}",
        "publishedAt == nil", "publishedAt < $DATE", "NOT publishedAt >= $DATE", "publishedAt != nil AND publishedAt > $DATE", "score > 2", "score == 1.25",
        "author.lastName == 'Ann'", "author.lastName ==[c] 'ANN' AND likes >= $MIN", "author == $AUTHOR", "author != $AUTHOR",
        "ANY tags.name == 'go'", "ANY tags.name IN $TAGS", "ALL tags.name == 'swift'", "NONE tags.name == 'swift'",
        "tags.@count == 2", "comments.@count > 0", "ANY comments.reader.lastName == 'Der'", "author.posts.@count == 3",
        "tags CONTAINS $TAG", "link == $LINK", "status == 0", "id != nil", "TRUEPREDICATE", "FALSEPREDICATE",
        "title == 'Post 0' OR (likes > 100 AND ANY tags.name == 'swift')",
        "publishedAt < CAST(1500, \"NSDate\")", "publishedAt BETWEEN {CAST(0, \"NSDate\"), $DATE}", "likes >= CAST(\"100\", \"NSNumber\")",
        "ANY tags.posts.title == 'Post 4'", "ALL tags.posts.likes >= 150", "NONE tags.posts.likes > 160",
        "SUBQUERY(tags, $t, $t.name == 'swift' OR $t.name == 'go').@count >= 2",
        "SUBQUERY(tags, $t, name BEGINSWITH 'g').@count > 0 AND likes > 0",
        "SUBQUERY(comments, $c, $c.text BEGINSWITH 'comment' AND $c.reader.lastName == $NAME).@count == 1",
        "SUBQUERY(tags, $t, $t == $TAG).@count == 0",
        "SUBQUERY(tags, $t, SUBQUERY($t.posts, $p, $p.likes >= $MIN).@count >= 2).@count > 0",
    ]

    /// A predicate the SQL translation cannot express (an aggregate across two to-many steps) still gets
    /// the in-memory store's answer, evaluated on objects, and never silently: the fetch and the count
    /// report it, with the reason, to the container's handler, and `queryPlan(for:)` says so; fetches
    /// that run as SQL report nothing.
    @Test func aFetchEvaluatedInMemoryIsReportedWithItsReason() throws {
        let directory = try temporaryDirectory()
        let memory = try ManagedContainer(model: BlogModel.model, store: .inMemory)
        let sqlite = try ManagedContainer(model: BlogModel.model, store: .sqlite(directory.appendingPathComponent("fallback.sqlite")))
        try seedBlog(memory)
        try seedBlog(sqlite)
        let heard = Mutex<[InMemoryFetch]>([])
        sqlite.onInMemoryFetch { fetch in heard.withLock { $0.append(fetch) } }
        memory.onInMemoryFetch { fetch in heard.withLock { $0.append(fetch) } }

        // Posts whose tags have two or more posts between them (counted across both to-many steps):
        // Post 3 (swift: posts 3 and 4) and Post 4 (swift, and go: post 4).
        let format = "tags.posts.@count >= 2"
        let request = try FetchRequest<Post>(entityName: "Post", predicate: format, sortDescriptors: [SortDescriptor("title")])
        let context = sqlite.newContext()
        let titles = try context.fetch(request).map(\.title)
        let memoryContext = memory.newContext()
        #expect(titles == (try memoryContext.fetch(request).map(\.title)))
        #expect(titles == ["Post 3", "Post 4"])
        #expect(try context.count(for: request) == titles.count)
        let reports = heard.withLock { $0 }
        #expect(reports.count == 2, "the fetch and the count on SQLite; nothing from the in-memory store, which runs no queries: \(reports)")
        #expect(reports.first?.entityName == "Post" && reports.first?.predicate == request.predicate.map { "\($0.predicate)" })
        guard case .inMemory(let reason) = try context.queryPlan(for: request) else {
            Issue.record("queryPlan says SQL for \(format)")
            return
        }
        #expect(reports.first?.reason == reason && !reason.isEmpty, "\(reason)")
        #expect(reports.first?.description.contains("runs in memory, loading every record") == true)

        _ = try context.fetch(try FetchRequest<Post>(entityName: "Post", predicate: "likes > 1 AND ANY tags.name == 'swift'"))
        #expect(heard.withLock { $0.count } == 2, "a fetch run as SQL reports nothing")
        #expect(try context.queryPlan(for: try FetchRequest<Post>(entityName: "Post", predicate: "likes > 1")).sqlPlan != nil)
    }

    /// `array[index]`: `[FIRST]`, `[LAST]`, `[n]` pick an element of an ordered relationship (the key path
    /// goes on from it), `[SIZE]` counts; the same answers in memory and on SQLite, where they are a
    /// reported fallback.
    @Test func indexesIntoOrderedRelationships() throws {
        let directory = try temporaryDirectory()
        let memory = try ManagedContainer(model: BlogModel.model, store: .inMemory)
        let sqlite = try ManagedContainer(model: BlogModel.model, store: .sqlite(directory.appendingPathComponent("index.sqlite")))
        let reported = Mutex(0)
        sqlite.onInMemoryFetch { _ in reported.withLock { $0 += 1 } }
        var answers: [[String]] = []
        for container in [memory, sqlite] {
            try seedBlog(container)
            let context = container.newContext()
            func titles(_ format: String) throws -> [String] {
                try context.fetch(try FetchRequest<Post>(entityName: "Post", predicate: format, sortDescriptors: [SortDescriptor("title")])).map(\.title)
            }
            // Ann wrote posts 0, 2, 4 (in that order), Bob posts 1 and 3.
            let found = [try titles("author.posts[FIRST].title == 'Post 0'"), try titles("author.posts[LAST].likes >= 150"),
                         try titles("author.posts[1] == SELF"), try titles("author.posts[SIZE] == 2"), try titles("author.posts[7].title == 'x'")]
            #expect(found == [["Post 0", "Post 2", "Post 4"], ["Café 1", "Post 0", "Post 2", "Post 3", "Post 4"], ["Post 2", "Post 3"], ["Café 1", "Post 3"], []])
            answers.append(found.map { $0.joined(separator: ",") })
        }
        #expect(answers[0] == answers[1])
        #expect(reported.withLock { $0 } >= 4)
    }

    /// `FUNCTION(receiver, 'selector:', arguments)` calls the Swift function registered for the
    /// selector, on objects: the same answer in memory and on SQLite, where it is a reported fallback;
    /// a selector nobody registered is an error naming it.
    @Test func functionCallsTheRegisteredSwiftFunction() throws {
        PredicateFunctions.register("likesTimes:") { receiver, arguments in
            guard let post = receiver as? Post, let factor = arguments.first as? Int64 else { return nil }
            return post.likes * factor
        }
        defer { PredicateFunctions.unregister("likesTimes:") }
        let directory = try temporaryDirectory()
        let memory = try ManagedContainer(model: BlogModel.model, store: .inMemory)
        let sqlite = try ManagedContainer(model: BlogModel.model, store: .sqlite(directory.appendingPathComponent("function.sqlite")))
        let reported = Mutex(0)
        sqlite.onInMemoryFetch { _ in reported.withLock { $0 += 1 } }
        for container in [memory, sqlite] {
            try seedBlog(container)
            let context = container.newContext()
            let request = try FetchRequest<Post>(entityName: "Post", predicate: "FUNCTION(SELF, 'likesTimes:', 2) > $LIMIT AND FUNCTION(title, 'likesTimes:', 2) == nil",
                                                 variables: ["LIMIT": 250], sortDescriptors: [SortDescriptor("likes")])
            #expect(try context.fetch(request).map(\.likes) == [150, 200])
            let unknown = try FetchRequest<Post>(entityName: "Post", predicate: "FUNCTION(SELF, 'nobody:') == 1")
            #expect { try context.fetch(unknown) } throws: { "\($0)".contains("no function is registered for 'nobody:'") }
        }
        #expect(reported.withLock { $0 } >= 1, "SQLite reports FUNCTION as evaluated on objects")
    }

    /// A `CAST(…, "NSDate")` literal answers as the same instant given as a variable, in memory and as SQL.
    @Test func castDateLiteralsAreTheInstantTheyName() throws {
        let directory = try temporaryDirectory()
        for container in [try ManagedContainer(model: BlogModel.model, store: .inMemory),
                          try ManagedContainer(model: BlogModel.model, store: .sqlite(directory.appendingPathComponent("cast.sqlite")))] {
            try seedBlog(container)
            let context = container.newContext()
            func titles(_ format: String, _ variables: [String: Any?] = [:]) throws -> [String] {
                var request = try FetchRequest<Post>(entityName: "Post", predicate: format, sortDescriptors: [SortDescriptor("title")])
                request.variables = variables
                return try context.fetch(request).map(\.title)
            }
            let viaVariable = try titles("publishedAt < $DATE", ["DATE": Date(timeIntervalSinceReferenceDate: 1500)])
            #expect(!viaVariable.isEmpty)
            #expect(try titles("publishedAt < CAST(1500, \"NSDate\")") == viaVariable)
            #expect(try titles("publishedAt < CAST('1500', \"NSDate\")") == viaVariable)
            #expect(try titles("publishedAt >= CAST(1500, \"NSDate\")") == titles("publishedAt >= $DATE", ["DATE": Date(timeIntervalSinceReferenceDate: 1500)]))
        }
    }

    @Test(arguments: predicates)
    func predicatesAgreeWithTheInMemoryStore(_ format: String) throws {
        let directory = try temporaryDirectory()
        let memory = try ManagedContainer(model: BlogModel.model, store: .inMemory)
        let sqlite = try ManagedContainer(model: BlogModel.model, store: .sqlite(directory.appendingPathComponent("b.sqlite")))
        try seedBlog(memory)
        try seedBlog(sqlite)
        func titles(_ container: ManagedContainer) throws -> [String] {
            let context = container.newContext()
            let ann = try #require(try context.fetch(try FetchRequest<Author>(entityName: "Author", predicate: "lastName == 'Ann'")).first)
            let swift = try #require(try context.fetch(try FetchRequest<Tag>(entityName: "Tag", predicate: "name == 'swift'")).first)
            var request = try FetchRequest<Post>(entityName: "Post", predicate: format, sortDescriptors: [SortDescriptor("title")])
            request.variables = ["DATE": Date(timeIntervalSinceReferenceDate: 1500), "MIN": 100, "AUTHOR": ann, "TAGS": ["go", "rust"],
                                 "TAG": swift, "LINK": URL(string: "https://example.com/2")!, "LOW": Int64(50), "HIGH": Int64(150), "NAME": "Der"]
            if container === sqlite {
                // The store answers it as SQL (no in-memory fallback).
                let query = StoreQuery(entityNames: ["Post"], entityName: "Post", predicate: request.predicate?.predicate,
                                       variables: request.variables.mapValues { EvaluatedValue(any: $0).queryValue! },
                                       sortDescriptors: request.sortDescriptors, fetchLimit: nil, fetchOffset: 0)
                #expect(try (container.store as? SQLiteStore)?.fetch(query) != nil, "not translated to SQL: \(format)")
                #expect(try (container.store as? SQLiteStore)?.count(query) == (try context.fetch(request)).count)
            }
            return try context.fetch(request).map(\.title)
        }
        #expect(try titles(sqlite) == (try titles(memory)))
    }

    /// Text goes to SQLite with its length: a string holding U+0000 comes back whole, and predicates
    /// (bound values, the [c] folding function) see all of it.
    @Test func textHoldingANulCharacterIsStoredWhole() throws {
        // Its own model (not BatchedFetchTests' Note, whose life-cycle counters that suite reads).
        let model = try ManagedObjectModel(name: "Texts", entities: [
            EntityDescription("Text", class: ManagedObject.self, attributes: [
                AttributeDescription("index", .int64, defaultValue: .int(0)), AttributeDescription("text", .string),
            ]),
        ])
        let url = try temporaryDirectory().appendingPathComponent("nul.sqlite")
        let awkward = "before\u{0}after – Ünïcode \u{0}"
        do {
            let context = try ManagedContainer(model: model, store: .sqlite(url)).newContext()
            let text = try context.insertObject(entityName: "Text")
            try text.setValue(awkward, forKey: "text")
            let plain = try context.insertObject(entityName: "Text")
            try plain.setValue("before", forKey: "text")
            try plain.setValue(Int64(1), forKey: "index")
            try context.save()
        }
        let context = try ManagedContainer(model: model, store: .sqlite(url)).newContext()
        func fetch(_ request: FetchRequest<ManagedObject>, _ key: String) throws -> [String] {
            try context.fetch(request).map { "\(try $0.value(forKey: key) ?? "nil")" }
        }
        #expect(try fetch(FetchRequest<ManagedObject>(entityName: "Text", sortDescriptors: [SortDescriptor("index")]), "text") == [awkward, "before"])
        let equal = try FetchRequest<ManagedObject>(entityName: "Text", predicate: "text == $T", variables: ["T": awkward])
        #expect(try fetch(equal, "index") == ["0"])
        let folded = try FetchRequest<ManagedObject>(entityName: "Text", predicate: "text ==[c] $T", variables: ["T": awkward.uppercased()])
        #expect(try fetch(folded, "index") == ["0"])
    }

    /// A stored NULL reads back as nil and a stored zero, false, empty text or the reference date as
    /// that value, for every attribute type (numbers are read first and their NULL-ness asked only at 0).
    @Test func nullsAndZerosOfEveryTypeReadBackAsStored() throws {
        let types: [(String, AttributeType, Any)] = [
            ("flag", .bool, false), ("small", .int16, Int64(0)), ("whole", .int64, Int64(0)), ("ratio", .float, 0.0),
            ("amount", .double, 0.0), ("price", .decimal, Decimal(0)), ("text", .string, ""),
            ("at", .date, Date(timeIntervalSinceReferenceDate: 0)), ("bytes", .binary, Data()),
            ("token", .uuid, UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))), ("link", .uri, URL(string: "a:b")!),
        ]
        let model = try Self.indexedModel("Zeros", entity: "Probe", optional: types)
        let url = try temporaryDirectory().appendingPathComponent("zeros.sqlite")
        do {
            let context = try ManagedContainer(model: model, store: .sqlite(url)).newContext()
            let empty = try context.insertObject(entityName: "Probe")
            try empty.setValue(Int64(0), forKey: "index")
            let zeros = try context.insertObject(entityName: "Probe")
            try zeros.setValue(Int64(1), forKey: "index")
            for (key, _, zero) in types { try zeros.setValue(zero, forKey: key) }
            try context.save()
        }
        let context = try ManagedContainer(model: model, store: .sqlite(url)).newContext()
        let probes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Probe", sortDescriptors: [SortDescriptor("index")]))
        #expect(probes.count == 2)
        for (key, _, zero) in types {
            #expect(try probes[0].value(forKey: key) == nil, "\(key) of the empty record")
            let stored = try probes[1].value(forKey: key)
            #expect(stored != nil && "\(stored!)" == "\(zero)", "\(key) of the record of zeros: \(String(describing: stored))")
        }
    }

    /// A model of one entity: a required `index` and an optional attribute of each of `types`.
    static func indexedModel(_ name: String, entity: String, optional types: [(String, AttributeType, Any)]) throws -> ManagedObjectModel {
        try ManagedObjectModel(name: name, entities: [
            EntityDescription(entity, class: ManagedObject.self,
                              attributes: [AttributeDescription("index", .int64)] + types.map { AttributeDescription($0.0, $0.1, optional: true) }),
        ])
    }

    /// A value of each attribute type, awkward where a type allows it (an exact decimal of 20 digits,
    /// text long enough for the heap, a date before the reference date), keyed by attribute name.
    static var valuesOfEveryType: [(String, AttributeType, Any)] { [
        ("flag", .bool, true), ("small", .int16, Int64(-7)), ("whole", .int64, Int64.max), ("ratio", .float, 0.5),
        ("amount", .double, -1.25e300), ("price", .decimal, Decimal(string: "12.345678901234567890")!), ("text", .string, "Ünïcode, long enough for the heap"),
        ("at", .date, Date(timeIntervalSinceReferenceDate: -86_400.5)), ("bytes", .binary, Data([0, 1, 255])),
        ("token", .uuid, UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))), ("link", .uri, URL(string: "https://example.com/a?b=c")!),
    ] }

    /// A batch update writes each attribute type as a save does: an exact decimal stays exact, and
    /// every value reads back in a new container as set.
    @Test func aBatchUpdateWritesEveryTypeAsASaveDoes() throws {
        let values = Self.valuesOfEveryType
        let model = try Self.indexedModel("Dials", entity: "Dial", optional: values)
        let url = try temporaryDirectory().appendingPathComponent("dials.sqlite")
        do {
            let context = try ManagedContainer(model: model, store: .sqlite(url)).newContext()
            for index in 0..<3 { try context.insertObject(entityName: "Dial").setValue(Int64(index), forKey: "index") }
            try context.save()
            var set: [String: Any?] = [:]
            for (key, _, value) in values { set[key] = value }
            let changes = try context.batchUpdate(FetchRequest<ManagedObject>(entityName: "Dial", predicate: "index > 0"), set: set)
            #expect(changes.updated.count == 2)
        }
        let context = try ManagedContainer(model: model, store: .sqlite(url)).newContext()
        let dials = try context.fetch(FetchRequest<ManagedObject>(entityName: "Dial", sortDescriptors: [SortDescriptor("index")]))
        for (key, _, value) in values {
            #expect(try dials[0].value(forKey: key) == nil, "\(key)")
            let stored = try dials[2].value(forKey: key)
            #expect(stored.map { "\($0)" } == "\(value)", "\(key): \(String(describing: stored))")
        }
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Dial", predicate: "price == 12.345678901234567890")) == 2)
    }

    /// A fetch writes each fault's plain attributes from the statement straight into its slots
    /// (`SQLiteStore.fetch(_:objects:each:)`): every type reads back as saved (values, nils, a transient's
    /// default, relationships), and an object already loaded keeps its unsaved change.
    @Test func aFetchLoadsEveryTypeFromItsStatementAndLeavesLoadedObjectsAlone() throws {
        let values = Self.valuesOfEveryType
        let model = try ManagedObjectModel(name: "Gauges", entities: [
            EntityDescription("Gauge", class: ManagedObject.self,
                              attributes: [AttributeDescription("index", .int64), AttributeDescription("note", .string, transient: true, defaultValue: .string("unsaved"))]
                                + values.map { AttributeDescription($0.0, $0.1, optional: true) },
                              relationships: [RelationshipDescription("shelf", destination: "Shelf", inverse: "gauges")]),
            EntityDescription("Shelf", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("gauges", destination: "Gauge", inverse: "shelf", toMany: true)]),
        ])
        let url = try temporaryDirectory().appendingPathComponent("gauges.sqlite")
        do {
            let context = try ManagedContainer(model: model, store: .sqlite(url)).newContext()
            let shelf = try context.insertObject(entityName: "Shelf")
            try shelf.setValue("top", forKey: "name")
            for index in 0..<3 {
                let gauge = try context.insertObject(entityName: "Gauge")
                try gauge.setValue(Int64(index), forKey: "index")
                if index > 0 {
                    for (key, _, value) in values { try gauge.setValue(value, forKey: key) }
                    try gauge.setValue(shelf, forKey: "shelf")
                }
            }
            try context.save()
        }
        let context = try ManagedContainer(model: model, store: .sqlite(url)).newContext()
        let loaded = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Gauge", predicate: "index == 1")).first)
        try loaded.setValue("edited", forKey: "text")
        let gauges = try context.fetch(FetchRequest<ManagedObject>(entityName: "Gauge", sortDescriptors: [SortDescriptor("index")]))
        #expect(gauges.count == 3)
        #expect(gauges[1] === loaded)
        #expect(try loaded.value(forKey: "text") as? String == "edited")
        for (key, _, value) in values {
            #expect(try gauges[0].value(forKey: key) == nil, "\(key) of the empty gauge")
            let stored = try gauges[2].value(forKey: key)
            #expect(stored != nil && "\(stored!)" == "\(value)", "\(key): \(String(describing: stored))")
        }
        for gauge in gauges {
            #expect(try gauge.value(forKey: "note") as? String == "unsaved")
        }
        #expect(try gauges[0].value(forKey: "shelf") == nil)
        let shelf = try #require(try gauges[2].value(forKey: "shelf") as? ManagedObject)
        #expect(try shelf.value(forKey: "name") as? String == "top")
        #expect((try shelf.value(forKey: "gauges") as? [ManagedObject])?.count == 2)
    }

    /// SQLite turns NaN into NULL: a save holding one fails with a clear error and writes nothing
    /// (infinities are kept).
    @Test func notANumberIsRefusedRatherThanLost() throws {
        let model = try ManagedObjectModel(name: "Readings", entities: [
            EntityDescription("Reading", class: ManagedObject.self, attributes: [AttributeDescription("value", .double, optional: true)]),
        ])
        let container = try ManagedContainer(model: model, store: .sqlite(try temporaryDirectory().appendingPathComponent("r.sqlite")))
        let context = container.newContext()
        let fine = try context.insertObject(entityName: "Reading")
        try fine.setValue(Double.infinity, forKey: "value")
        let bad = try context.insertObject(entityName: "Reading")
        try bad.setValue(Double.nan, forKey: "value")
        #expect {
            try context.save()
        } throws: { error in
            "\(error)".hasPrefix("Reading.value (\(bad.objectID)): NaN cannot be stored in SQLite")
                && "\(error)".hasSuffix("the save wrote nothing")
        }
        #expect(bad.isInserted && fine.isInserted)                           // nothing changed in the context
        #expect(try container.newContext().count(for: FetchRequest<ManagedObject>(entityName: "Reading")) == 0)
        try bad.setValue(-1.5, forKey: "value")
        try context.save()
        let reader = container.newContext()
        let values = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Reading")).map { try $0.value(forKey: "value") as? Double }
        #expect(Set(values) == [Double.infinity, -1.5])
    }

    @Test func sortsLimitsOffsetsAndSubentitiesRunAsSQL() throws {
        let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(try temporaryDirectory().appendingPathComponent("b.sqlite")))
        try seedBlog(container)
        let context = container.newContext()
        var request = FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("author.lastName", ascending: false), SortDescriptor("likes")])
        #expect(try context.fetch(request).map(\.likes) == [50, 150, 0, 100, 200])
        request.fetchOffset = 1
        request.fetchLimit = 3
        #expect(try context.fetch(request).map(\.likes) == [150, 0, 100])
        #expect(try context.count(for: request) == 3)
        request.sortDescriptors = [SortDescriptor("publishedAt", ascending: true)]
        request.fetchOffset = 0
        request.fetchLimit = nil
        #expect(try context.fetch(request).first?.publishedAt == nil)   // NULL sorts first, as in memory
        var people = FetchRequest<Person>(entityName: "Person", sortDescriptors: [SortDescriptor("lastName")])
        #expect(try context.fetch(people).map(\.lastName) == ["Ann", "Bob", "Der"])
        #expect(try context.fetch(people).last is Reader)
        people.includesSubentities = false
        #expect(try context.fetch(people).isEmpty)
        #expect(try context.count(for: people) == 0)
    }

    @Test func pendingChangesOfTheContextAreReflected() throws {
        let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(try temporaryDirectory().appendingPathComponent("b.sqlite")))
        try seedBlog(container)
        let context = container.newContext()
        let popular = try FetchRequest<Post>(entityName: "Post", predicate: "likes >= 150", sortDescriptors: [SortDescriptor("likes")])
        let posts = try context.fetch(FetchRequest<Post>(entityName: "Post", sortDescriptors: [SortDescriptor("likes")]))
        posts[0].likes = 999                 // changed, unsaved: now matches
        posts[3].likes = 1                   // changed, unsaved: no longer matches
        context.delete(posts[4])             // deleted, unsaved: gone
        let fresh = Post(context: context, title: "Fresh", author: posts[0].author!)
        fresh.likes = 500                    // inserted, unsaved: appears
        #expect(try context.fetch(popular).map(\.title) == ["Fresh", "Post 0"])
        #expect(try context.count(for: popular) == 2)
        var limited = popular
        limited.fetchLimit = 1
        #expect(try context.fetch(limited).map(\.title) == ["Fresh"])
    }

    @Test func fetchedObjectsAreFaultsThatFireOnFirstAccess() throws {
        let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(try temporaryDirectory().appendingPathComponent("b.sqlite")))
        try seedBlog(container)
        let context = container.newContext()
        var request = FetchRequest<Author>(entityName: "Author", sortDescriptors: [SortDescriptor("lastName")])
        request.resultType = .faults
        let authors = try context.fetch(request)
        #expect(authors.allSatisfy { $0.isFault && $0.awakeFromFetchCount == 0 })
        #expect(authors[0].lastName == "Ann")
        #expect(!authors[0].isFault && authors[0].awakeFromFetchCount == 1 && authors[1].isFault)
        #expect(authors[0].posts.count == 3)                 // the to-many relationship loads as a whole
        #expect(authors[0].posts.allSatisfy { $0.isFault })      // its members stay faults
        context.refresh(authors[0], mergeChanges: false)
        #expect(authors[0].isFault && authors[0].faultCount == 1)
        #expect(authors[0].bio == "loaded" && authors[0].awakeFromFetchCount == 2)
        context.reset()
        #expect(authors[1].faultCount == 0 && authors[0].faultCount == 2)
    }

    @Test func aFailedSaveWritesNothingAndConflictsAreDetected() throws {
        let url = try temporaryDirectory().appendingPathComponent("b.sqlite")
        let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(url))
        try seedBlog(container)
        let context = container.newContext()
        let post = try #require(try context.fetch(try FetchRequest<Post>(entityName: "Post", predicate: "likes == 0")).first)
        post.likes = 1
        post.title = ""   // invalid: the whole save fails
        let extra = Post(context: context, title: "Extra", author: post.author!)
        extra.likes = 7
        #expect(throws: ValidationError.self) { try context.save() }
        let reopened = try ManagedContainer(model: BlogModel.model, store: .sqlite(url)).newContext()
        #expect(try reopened.count(for: FetchRequest<Post>(entityName: "Post")) == 5)
        #expect(try reopened.count(for: try FetchRequest<Post>(entityName: "Post", predicate: "likes == 0")) == 1)

        // Two containers on one file (as two processes would be): the later save of the same row conflicts.
        post.title = "Post 0"
        let other = try ManagedContainer(model: BlogModel.model, store: .sqlite(url)).newContext()
        let same = try #require(try other.fetch(try FetchRequest<Post>(entityName: "Post", predicate: "likes == 0")).first)
        same.likes = 42
        try other.save()
        #expect(throws: MergeConflictError.self) { try context.save() }
        context.mergePolicy = .overwrite
        try context.save()
        let check = try ManagedContainer(model: BlogModel.model, store: .sqlite(url)).newContext()
        #expect(try check.fetch(try FetchRequest<Post>(entityName: "Post", predicate: "title == 'Extra'")).first?.likes == 7)
        #expect(try check.count(for: try FetchRequest<Post>(entityName: "Post", predicate: "likes == 1")) == 1)
    }

    /// A record another container deleted stays deleted whatever this context's policy: `.error` refuses
    /// the save; `.overwrite` (as every other policy) drops the update of the deleted record, saves the
    /// rest, and the object leaves the context. No policy writes a deleted record again (its links to
    /// other records are gone with it).
    @Test func aRecordDeletedElsewhereStaysDeletedUnderEveryPolicy() throws {
        let url = try temporaryDirectory().appendingPathComponent("b.sqlite")
        let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(url))
        try seedBlog(container)
        let context = container.newContext()
        let first = try FetchRequest<Comment>(entityName: "Comment", predicate: "text == 'comment on 0'")
        let comment = try #require(try context.fetch(first).first)
        comment.text = "edited"
        let tag = Tag(context: context, name: "saved alongside")
        let other = try ManagedContainer(model: BlogModel.model, store: .sqlite(url)).newContext()
        other.delete(try #require(try other.fetch(first).first))
        try other.save()
        #expect(throws: MergeConflictError.self) { try context.save() }
        context.mergePolicy = .overwrite
        try context.save()
        let check = try ManagedContainer(model: BlogModel.model, store: .sqlite(url)).newContext()
        #expect(try check.count(for: try FetchRequest<Comment>(entityName: "Comment", predicate: "text == 'edited'")) == 0)
        #expect(try check.count(for: FetchRequest<Comment>(entityName: "Comment")) == 1)
        #expect(try check.count(for: try FetchRequest<Tag>(entityName: "Tag", predicate: "name == 'saved alongside'")) == 1)
        #expect(comment.managedObjectContext == nil && !context.hasChanges)
        _ = tag
    }

    /// The uniqueness check asks the SQLite store only for records with the pending keys.
    @Test func uniquenessIsCheckedAgainstSavedRecords() throws {
        let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(try temporaryDirectory().appendingPathComponent("b.sqlite")))
        try seedBlog(container)
        let context = container.newContext()
        let duplicate = makeAuthor(context, "Ann")           // ann@example.com is saved already
        let tag = Tag(context: context)
        tag.name = "swift"                                   // so is the tag name
        #expect {
            try context.save()
        } throws: { error in
            let failures = (error as? ValidationError)?.failures ?? []
            return failures.contains { $0.objectID == duplicate.objectID && $0.key == "email" } && failures.contains { $0.objectID == tag.objectID && $0.key == "name" }
        }
        duplicate.email = "another@example.com"
        tag.name = "rust"
        try context.save()
    }

    /// A fetch loads a binary kept in an external file, and one kept inline in the same column, as
    /// `existingObject(with:)` does (a fetch writes plain attributes into the slots from its statement).
    @Test func aFetchReadsExternalAndInlineBinaries() throws {
        let (_, container) = try storeWithExternalFiles()
        let context = container.newContext()
        let big = Data((0..<5000).map { UInt8($0 % 251) })
        makeAuthor(context, "Big").avatar = big
        makeAuthor(context, "Small").avatar = Data([1, 2, 3])
        makeAuthor(context, "None").avatar = nil
        try context.save()
        let reader = container.newContext()
        let fetched = try reader.fetch(FetchRequest<Author>(entityName: "Author", sortDescriptors: [SortDescriptor("lastName")]))
        #expect(fetched.map(\.lastName) == ["Big", "None", "Small"])
        #expect(fetched.map(\.avatar) == [big, nil, Data([1, 2, 3])])
    }

    @Test func externalBinariesLiveBesideTheDatabaseAndGoWithTheirRecords() throws {
        let (store, container) = try storeWithExternalFiles()
        let context = container.newContext()
        let author = makeAuthor(context)
        let big = Data((0..<5000).map { UInt8($0 % 251) })
        author.avatar = big
        try context.save()
        func files() -> Set<String> { externalFiles(of: store) }
        #expect(files().count == 1)
        author.bio = "changed"          // the binary is unchanged: its file is kept
        try context.save()
        #expect(files().count == 1)
        let other = container.newContext()
        #expect((try other.existingObject(with: author.objectID) as? Author)?.avatar == big)
        author.avatar = Data(big.reversed())
        try context.save()
        #expect(files().count == 1)
        author.avatar = Data([1, 2, 3])  // small: inline, the file goes
        try context.save()
        #expect(files().isEmpty)
        author.avatar = big
        try context.save()
        context.delete(author)
        try context.save()
        #expect(files().isEmpty)
    }
}

final class MigrationNote: ManagedObject {}
final class MigrationFolder: ManagedObject {}

@Suite struct SQLiteMigrationTests {
    func model(_ attributes: [AttributeDescription], folders: Bool = false) throws -> ManagedObjectModel {
        var entities = [EntityDescription("Note", class: MigrationNote.self, attributes: attributes)]
        if folders { entities.append(EntityDescription("Folder", class: MigrationFolder.self, attributes: [AttributeDescription("name", .string)])) }
        return try ManagedObjectModel(name: "Notes", entities: entities)
    }

    func bytes(_ url: URL) throws -> [Data] {
        try [url.path, url.path + "-wal"].filter { FileManager.default.fileExists(atPath: $0) }.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    }

    @Test func additiveChangesAndRenamesMigrateInPlaceAndAnythingElseIsRefused() throws {
        let url = try temporaryDirectory().appendingPathComponent("notes.sqlite")
        let v1 = try model([AttributeDescription("title", .string), AttributeDescription("body", .string, optional: true)])
        do {
            let context = try ManagedContainer(model: v1, store: .sqlite(url)).newContext()
            let note = try context.insertObject(entityName: "Note")
            try note.setValue("Hello", forKey: "title")
            try note.setValue("World", forKey: "body")
            try context.save()
        }
        // Renamed attribute (renamingIdentifier), new optional and defaulted attributes, a new entity.
        let v2 = try model([AttributeDescription("heading", .string, renamingIdentifier: "title"),
                            AttributeDescription("body", .string, optional: true),
                            AttributeDescription("pinned", .bool, defaultValue: .bool(true)),
                            AttributeDescription("tagline", .string, optional: true)], folders: true)
        do {
            let context = try ManagedContainer(model: v2, store: .sqlite(url)).newContext()
            let note = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first)
            #expect(try note.value(forKey: "heading") as? String == "Hello")
            #expect(try note.value(forKey: "body") as? String == "World")
            #expect(try note.value(forKey: "pinned") as? Bool == true)
            #expect(try note.value(forKey: "tagline") == nil)
            let folder = try context.insertObject(entityName: "Folder")
            try folder.setValue("Inbox", forKey: "name")
            try context.save()
            #expect(try context.count(for: try FetchRequest<ManagedObject>(entityName: "Note", predicate: "heading == 'Hello' AND pinned == YES")) == 1)
        }
        // Removing an attribute, changing a type, or a new required attribute without default: refused, file untouched.
        let before = try bytes(url)
        let refused: [(ManagedObjectModel, String)] = [
            (try model([AttributeDescription("heading", .string), AttributeDescription("pinned", .bool, defaultValue: .bool(true)),
                        AttributeDescription("tagline", .string, optional: true)], folders: true), "attribute Note.body was removed"),
            (try model([AttributeDescription("heading", .string), AttributeDescription("body", .int64, optional: true),
                        AttributeDescription("pinned", .bool, defaultValue: .bool(true)),
                        AttributeDescription("tagline", .string, optional: true)], folders: true), "its type changed from string to int64"),
            (try model([AttributeDescription("heading", .string), AttributeDescription("body", .string, optional: true),
                        AttributeDescription("pinned", .bool, defaultValue: .bool(true)), AttributeDescription("tagline", .string, optional: true),
                        AttributeDescription("priority", .int16)], folders: true), "Note.priority is new, required and has no default value"),
            (try model([AttributeDescription("heading", .string), AttributeDescription("body", .string, optional: true),
                        AttributeDescription("pinned", .bool, defaultValue: .bool(true)), AttributeDescription("tagline", .string, optional: true)]),
             "entity Folder was removed"),
        ]
        for (changed, message) in refused {
            #expect {
                _ = try ManagedContainer(model: changed, store: .sqlite(url))
            } throws: { error in
                "\(error)".contains(message) && "\(error)".contains("the file was not changed")
            }
            #expect(try bytes(url) == before)
        }
        // The file still opens with the model it was migrated to.
        let context = try ManagedContainer(model: v2, store: .sqlite(url)).newContext()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Folder")) == 1)
    }

    @Test func aFileThatIsNotAStoreIsRefused() throws {
        let url = try temporaryDirectory().appendingPathComponent("other.sqlite")
        let connection = try SQLiteConnection(path: url.path, create: true, configuration: SQLiteConfiguration(busyTimeout: .seconds(1)))
        try connection.execute("CREATE TABLE things (x)")
        #expect(throws: SQLiteStoreError.self) {
            _ = try ManagedContainer(model: try model([AttributeDescription("title", .string)]), store: .sqlite(url))
        }
    }
}
