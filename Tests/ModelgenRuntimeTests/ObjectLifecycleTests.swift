import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

@Suite struct ObjectLifecycleTests {
    @Test func insertSaveAndFetchInAnotherContext() throws {
        let (container, context) = try makeContext()
        let author = makeAuthor(context)
        #expect(author.isInserted && author.objectID.isTemporaryID)
        #expect(context.hasChanges)
        try context.save()
        #expect(!author.isInserted && !author.objectID.isTemporaryID && !context.hasChanges)

        let other = container.newContext()
        let fetched = try other.fetch(FetchRequest<Author>(entityName: "Author"))
        #expect(fetched.count == 1)
        #expect(fetched[0].lastName == "Lovelace")
        #expect(fetched[0].objectID == author.objectID)
        #expect(fetched[0] !== author)
    }

    @Test func awakeFromInsertRunsOnceInTheObjectsLifetime() throws {
        let (container, context) = try makeContext()
        let author = makeAuthor(context)
        #expect(author.awakeFromInsertCount == 1)
        #expect(author.createdAt == Date(timeIntervalSinceReferenceDate: 1_000))
        context.endUndoGroup()
        context.delete(author)
        context.undo()   // un-delete: not a new insertion
        context.redo()
        context.undo()
        #expect(author.awakeFromInsertCount == 1)
        try context.save()
        let fetched = try container.newContext().fetch(FetchRequest<Author>(entityName: "Author"))
        #expect(fetched.first?.awakeFromInsertCount == 0)   // fetching is not inserting
    }

    @Test func awakeFromFetchChangesDoNotDirtyTheObject() throws {
        let (container, context) = try makeContext()
        _ = makeAuthor(context)
        try context.save()
        let other = container.newContext()
        let author = try #require(try other.fetch(FetchRequest<Author>(entityName: "Author")).first)
        #expect(author.awakeFromFetchCount == 1)
        #expect(author.bio == "loaded")
        #expect(!author.isUpdated && !author.hasChanges && !other.hasChanges)
        author.rating = 3   // a real change after loading is tracked
        #expect(author.isUpdated && other.hasChanges)
        #expect(author.changedValues().keys.sorted() == ["rating"])
    }

    @Test func didTurnIntoFaultOnRefreshResetAndDeleteSave() throws {
        let (container, context) = try makeContext()
        _ = makeAuthor(context)
        try context.save()
        let other = container.newContext()
        let author = try #require(try other.fetch(FetchRequest<Author>(entityName: "Author")).first)
        author.rating = 4
        other.refresh(author, mergeChanges: false)
        #expect(author.faultCount == 1 && author.isFault && !other.hasChanges)
        #expect(author.rating == 0)          // fired: the saved value, change dropped
        #expect(author.awakeFromFetchCount == 2)
        other.reset()
        #expect(author.faultCount == 2)
        #expect(author.managedObjectContext == nil)
    }

    /// Numbers given through key-value access that the attribute cannot hold are refused with an
    /// error, never truncated or trapped on.
    @Test func integersThatDoNotFitAreRefusedNotTruncated() throws {
        let (_, context) = try makeContext()
        let author = makeAuthor(context)
        author.rating = 3
        #expect(throws: RuntimeError.valueOutOfRange(entity: "Author", key: "rating", value: "100000", type: "int16")) {
            try author.setValue(100_000, forKey: "rating")
        }
        #expect(author.rating == 3)                                   // unchanged
        try author.setValue(Int64(-32_768), forKey: "rating")
        #expect(author.rating == -32_768)
        let post = Post(context: context, title: "Big", author: author)
        #expect(throws: RuntimeError.self) { try post.setValue(UInt64.max, forKey: "likes") }
        try post.setValue(UInt64.max, forKey: "score")                 // a decimal holds it exactly
        #expect(post.score == Decimal(string: "18446744073709551615"))
        // A variable no Int64 holds compares as a number instead of stopping the process.
        let request = try FetchRequest<Post>(entityName: "Post", predicate: "likes < $HUGE", variables: ["HUGE": UInt64.max])
        #expect(try context.fetch(request).map(\.title) == ["Big"])
    }

    /// The conversions derived integer attributes and the SQLite store use: whole parts that fit, or nothing.
    @Test func integerConversionsNeverTruncateSilently() {
        #expect(AttributeType.int16.integerValue(truncating: 3.9) == 3)
        #expect(AttributeType.int16.integerValue(truncating: -32_768.5) == -32_768)
        #expect(AttributeType.int16.integerValue(truncating: 40_000) == nil)
        #expect(AttributeType.int64.integerValue(truncating: .nan) == nil)
        #expect(AttributeType.int64.integerValue(truncating: -.infinity) == nil)
        #expect(AttributeType.int64.integerValue(truncating: 1e30) == nil)
        #expect(AttributeType.int32.integerValue(exactly: Int64(Int32.max) + 1) == nil)
        #expect(AttributeType.int64.integerValue(exactly: UInt64.max) == nil)
        #expect(AttributeType.double.integerValue(exactly: 1) == nil)
    }

    @Test func abstractEntitiesAreRefused() throws {
        let (_, context) = try makeContext()
        #expect(throws: RuntimeError.abstractEntity("Person")) { try context.insertObject(entityName: "Person") }
        #expect(throws: RuntimeError.unknownEntity("Nope")) { try context.insertObject(entityName: "Nope") }
        let reader = try context.insertObject(entityName: "Reader")
        #expect(reader is Reader)
    }

    @Test func transientPropertiesAreTrackedAndUndoableButNeverSaved() throws {
        let (container, context) = try makeContext()
        let author = makeAuthor(context)
        let post = Post(context: context, title: "Hello", author: author)
        try context.save()
        post.renderedHTML = "<p>Hello</p>"
        #expect(post.changedValues()["renderedHTML"] as? String == "<p>Hello</p>")
        #expect(context.hasChanges)
        context.undo()
        #expect(post.renderedHTML == nil)
        context.redo()
        #expect(post.renderedHTML == "<p>Hello</p>")
        try context.save()
        let other = container.newContext()   // objects live as long as their context
        let fetched = try #require(try other.fetch(FetchRequest<Post>(entityName: "Post")).first)
        #expect(fetched.renderedHTML == nil)
        #expect(fetched.title == "Hello")
    }

    @Test func datesAreInstantsAndNonstandardValuesRoundTrip() throws {
        let (container, context) = try makeContext()
        let instant = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456)
        let author = makeAuthor(context)
        author.createdAt = instant
        author.timeZoneName = "Asia/Tokyo"
        let canvas = Canvas(context: context)
        canvas.title = "c"
        canvas.color = RGBAColor(r: 0.1, g: 0.2, b: 0.3, a: 1)
        try context.save()
        let other = container.newContext()
        let fetchedAuthor = try #require(try other.fetch(FetchRequest<Author>(entityName: "Author")).first)
        #expect(fetchedAuthor.createdAt == instant)
        #expect(fetchedAuthor.timeZoneName == "Asia/Tokyo")
        let fetchedCanvas = try #require(try other.fetch(FetchRequest<Canvas>(entityName: "Canvas")).first)
        #expect(fetchedCanvas.color == RGBAColor(r: 0.1, g: 0.2, b: 0.3, a: 1))
    }

    /// An undefined (Core Data's Undefined) transient attribute holds whatever code puts in it, of its
    /// swiftType, tracked and observed like any property, and is never stored.
    @Test func anUndefinedTransientAttributeHoldsAnyValueAndIsNeverStored() throws {
        let url = scratchDirectory.appendingPathComponent("undefined-\(UUID().uuidString).sqlite")
        let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(url))
        let context = container.newContext()
        let canvas = Canvas(context: context)
        canvas.title = "sketch"
        canvas.color = RGBAColor(r: 0, g: 0, b: 0, a: 1)
        #expect(canvas.brush == nil)
        let brush = BrushState()
        brush.strokes = ["line", "arc"]
        canvas.brush = brush
        #expect(canvas.brush === brush)
        try context.save()
        #expect(canvas.brush === brush, "a save keeps the value in the object")
        canvas.brush?.strokes.append("dot")
        #expect(brush.strokes == ["line", "arc", "dot"])

        let other = ManagedContainer(model: BlogModel.model, store: try SQLiteStore(url: url, model: BlogModel.model)).newContext()
        let fetched = try #require(try other.fetch(FetchRequest<Canvas>(entityName: "Canvas")).first)
        #expect(fetched.title == "sketch")
        #expect(fetched.brush == nil, "never stored")
        #expect(BlogModel.model.entity(named: "Canvas")?.properties.contains { $0.name == "brush" && $0.isTransient } == true)
    }

    @Test func aTransformableValueItsCodecCannotEncodeFailsTheSave() throws {
        let (container, context) = try makeContext()
        let canvas = Canvas(context: context)
        canvas.title = "c"
        canvas.color = RGBAColor(r: .nan, g: 0, b: 0, a: 1)   // JSON has no NaN: encoding throws
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(error.failures.map(\.key) == ["color"])
        #expect(error.failures[0].message.hasPrefix("cannot be encoded for storing"))
        #expect(try container.newContext().count(for: FetchRequest<Canvas>(entityName: "Canvas")) == 0)
    }

    @Test func aRawValueTheEnumRefusesIsAClearError() throws {
        let (container, context) = try makeContext()
        let post = Post(context: context, title: "Odd", author: makeAuthor(context))
        try post.setValue(Int16(7), forKey: "status")   // bypasses the enum
        try context.save()
        #expect {
            _ = try container.newContext().fetch(FetchRequest<Post>(entityName: "Post"))
        } throws: { error in
            "\(error)".contains("7") && "\(error)".contains("PostStatus") && "\(error)".contains("Post.status")
        }
    }

    @Test func keyValueAccessAndPrimitiveValues() throws {
        let (_, context) = try makeContext()
        let author = makeAuthor(context)
        try context.save()
        #expect(try author.value(forKey: "lastName") as? String == "Lovelace")
        try author.setPrimitiveValue("Byron", forKey: "lastName")
        #expect(author.lastName == "Byron")
        #expect(!author.isUpdated)   // primitive: not tracked
        try author.setValue(Int16(2), forKey: "rating")
        #expect(author.isUpdated && author.rating == 2)
        #expect(author.committedValues(forKeys: ["rating"])["rating"] as? Int64 == 0)
        #expect(throws: RuntimeError.unknownKey(entity: "Author", key: "nope")) { try author.value(forKey: "nope") }
        #expect(throws: RuntimeError.self) { try author.setValue("x", forKey: "rating") }
    }

    @Test func objectsByIDAndUniquing() throws {
        let (container, context) = try makeContext()
        let author = makeAuthor(context)
        try context.save()
        let id = author.objectID
        #expect(context.object(with: id) === author)
        let other = container.newContext()
        let a = try other.existingObject(with: id)
        let b = try #require(try other.fetch(FetchRequest<Author>(entityName: "Author")).first)
        #expect(a === b)   // one object per record per context
        #expect(throws: RuntimeError.objectNotFound(ObjectID(entityName: "Author", key: 999))) {
            try other.existingObject(with: ObjectID(entityName: "Author", key: 999))
        }
    }

    @Test func derivedAttributesAreRecomputedOnSave() throws {
        let (_, context) = try makeContext()
        let post = Post(context: context, title: "Mixed Case", author: makeAuthor(context))
        for text in ["a", "b"] {
            let comment = Comment(context: context)
            comment.text = text
            comment.postedAt = Date()
            comment.post = post
        }
        try context.save()
        #expect(post.commentCount == 2)
        #expect(post.searchTitle == "mixed case")
    }
}
