import Foundation
import Testing
@testable import ModelgenRuntime

// A program as a new user would write it, on a model of its own (no example's): cooks, recipes,
// ingredients (many-to-many) and ratings, thousands of rows in SQLite. It lists recipes with their
// cooks and ingredients prefetched, reports ratings per cook grouped in the store, and clears old
// ratings with a batch delete from a background context while a LiveResults on the main context
// shows the good ratings: the delete reaches it.

final class RecipeCook: ManagedObject {
    @Managed(slot: 0) var name: String
    @Managed(slot: 1) var recipes: Set<RecipeDish>
}

final class RecipeDish: ManagedObject {
    @Managed(slot: 0) var title: String
    @Managed(slot: 1) var minutes: Int64
    @Managed(slot: 2) var cook: RecipeCook?
    @Managed(slot: 3) var ingredients: Set<RecipeIngredient>
    @Managed(slot: 4) var ratings: Set<RecipeRating>
}

final class RecipeIngredient: ManagedObject {
    @Managed(slot: 0) var name: String
    @Managed(slot: 1) var dishes: Set<RecipeDish>
}

final class RecipeRating: ManagedObject {
    @Managed(slot: 0) var stars: Int16
    @Managed(slot: 1) var ratedAt: Date
    @Managed(slot: 2) var dish: RecipeDish?
}

@Suite struct RecipeProgramTests {
    static let model = try! ManagedObjectModel(name: "Recipes", entities: [
        EntityDescription("Cook", class: RecipeCook.self, attributes: [AttributeDescription("name", .string)],
                          relationships: [RelationshipDescription("recipes", destination: "Dish", inverse: "cook", toMany: true)]),
        EntityDescription("Dish", class: RecipeDish.self, attributes: [AttributeDescription("title", .string), AttributeDescription("minutes", .int64)],
                          relationships: [
                            RelationshipDescription("cook", destination: "Cook", inverse: "recipes"),
                            RelationshipDescription("ingredients", destination: "Ingredient", inverse: "dishes", toMany: true),
                            RelationshipDescription("ratings", destination: "Rating", inverse: "dish", toMany: true, deleteRule: .cascade),
                          ], indexes: [["title"]]),
        EntityDescription("Ingredient", class: RecipeIngredient.self, attributes: [AttributeDescription("name", .string)],
                          relationships: [RelationshipDescription("dishes", destination: "Dish", inverse: "ingredients", toMany: true)]),
        EntityDescription("Rating", class: RecipeRating.self, attributes: [AttributeDescription("stars", .int16), AttributeDescription("ratedAt", .date)],
                          relationships: [RelationshipDescription("dish", destination: "Dish", inverse: "ratings")],
                          indexes: [["ratedAt"]]),
    ])

    static let day: TimeInterval = 86_400

    /// 40 cooks, `dishes` dishes (three of 150 ingredients each), two ratings a dish over 100 days.
    func kitchen(dishes: Int) throws -> (ManagedContainer, StatementCounter, URL) {
        let counter = StatementCounter()
        let (container, file) = try emptyContainer("sqlite", model: Self.model, counter: counter)
        let url = try #require(file)
        let context = container.newContext(observation: .unobserved)
        let cooks = (0..<40).map { index -> RecipeCook in
            let cook = RecipeCook(context: context)
            cook.name = "Cook \(index)"
            return cook
        }
        let ingredients = (0..<150).map { index -> RecipeIngredient in
            let ingredient = RecipeIngredient(context: context)
            ingredient.name = "ingredient \(String(format: "%03d", index))"
            return ingredient
        }
        for index in 0..<dishes {
            let dish = RecipeDish(context: context)
            dish.title = "Dish \(String(format: "%05d", (index * 7_919) % dishes))"
            dish.minutes = Int64(10 + index % 50)
            dish.cook = cooks[index % cooks.count]
            for step in 0..<3 { dish.ingredients.insert(ingredients[(index * 3 + step * 17) % ingredients.count]) }
            for rating in 0..<2 {
                let made = RecipeRating(context: context)
                made.stars = Int16(1 + (index + rating) % 5)
                made.ratedAt = Date(timeIntervalSinceReferenceDate: Double((index * 2 + rating) % 100) * Self.day)
                made.dish = dish
            }
        }
        try context.save()
        return (container, counter, url)
    }

    /// The list screen: the first `limit` dishes by title, each with its cook and its ingredients, and
    /// the number of queries it took.
    func list(_ container: ManagedContainer, _ counter: StatementCounter, limit: Int) throws -> (lines: [String], queries: Int) {
        let context = container.newContext()
        let before = counter.count
        var request = FetchRequest<RecipeDish>(entityName: "Dish", sortDescriptors: [SortDescriptor("title")], fetchLimit: limit)
        request.relationshipKeyPathsForPrefetching = ["cook", "ingredients"]
        let lines = try context.fetch(request).map { dish in
            "\(dish.title) by \(dish.cook?.name ?? "?"): \(dish.ingredients.map(\.name).sorted().joined(separator: ", "))"
        }
        return (lines, counter.count - before)
    }

    @Test func prefetchingKeepsTheListToAFewQueriesWhateverItsLength() throws {
        let (container, counter, url) = try kitchen(dishes: 3_000)
        defer { try? FileManager.default.removeItem(at: url) }
        let short = try list(container, counter, limit: 50)
        let middle = try list(container, counter, limit: 240)
        let long = try list(container, counter, limit: 1_500)
        #expect(short.lines.count == 50 && long.lines.count == 1_500)
        // One query for the dishes, and one per step for the 40 cooks and for the links to ingredients
        // joined to the 150 ingredients, whatever the number of dishes (an `IN` list holds up to 16,384 keys).
        #expect(short.queries == 3 && middle.queries == 3 && long.queries == 3, "queries for 50, 240 and 1,500 dishes: \(short.queries), \(middle.queries), \(long.queries)")
        #expect(Array(long.lines.prefix(50)) == short.lines)
        // Each line says what the objects say when read one by one in a context of their own.
        let check = container.newContext()
        let dishes = try check.fetch(FetchRequest<RecipeDish>(entityName: "Dish", sortDescriptors: [SortDescriptor("title")], fetchLimit: 1_500))
        #expect(long.lines == dishes.map { "\($0.title) by \($0.cook?.name ?? "?"): \($0.ingredients.map(\.name).sorted().joined(separator: ", "))" })
        #expect(long.lines[0].hasPrefix("Dish 00000 by Cook 0: "))
    }

    @Test func theReportIsGroupedInTheStoreAndAgreesWithTheObjects() throws {
        let (container, counter, url) = try kitchen(dishes: 3_000)
        defer { try? FileManager.default.removeItem(at: url) }
        let context = container.newContext()
        let before = counter.count
        let rows = try context.aggregate(AggregateRequest(try FetchRequest<RecipeRating>(entityName: "Rating", predicate: "stars >= 2"),
                                                          groupBy: ["dish.cook.name"],
                                                          columns: [.count(as: "ratings"), .average("stars", as: "average"), .maximum("ratedAt", as: "latest")],
                                                          sortBy: [(key: "dish.cook.name", ascending: true)]))
        #expect(counter.count - before == 1, "one query for the whole report")
        #expect(rows.count == 40)
        // The same report worked out from the objects.
        var expected: [String: (count: Int64, total: Int64, latest: Date)] = [:]
        for rating in try context.fetch(FetchRequest<RecipeRating>(entityName: "Rating")) where rating.stars >= 2 {
            let name = rating.dish?.cook?.name ?? ""
            expected[name, default: (0, 0, .distantPast)].count += 1
            expected[name, default: (0, 0, .distantPast)].total += Int64(rating.stars)
            expected[name]!.latest = max(expected[name]!.latest, rating.ratedAt)
        }
        for row in rows {
            let name = try #require(row.string("dish.cook.name"))
            let mine = try #require(expected[name])
            #expect(row.int("ratings") == mine.count)
            #expect(abs((row.double("average") ?? 0) - Double(mine.total) / Double(mine.count)) < 1e-9)
            if case .date(let latest)? = row["latest"] { #expect(latest == mine.latest) } else { Issue.record("latest is \(String(describing: row["latest"]))") }
        }
        #expect(rows.map { $0.string("dish.cook.name") ?? "" } == expected.keys.sorted())
    }

    @MainActor @Test func aBatchDeleteFromTheBackgroundReachesTheMainContextsLiveResults() async throws {
        let (container, _, url) = try kitchen(dishes: 2_000)
        defer { try? FileManager.default.removeItem(at: url) }
        let main = container.mainContext
        let good = try LiveResults(try FetchRequest<RecipeRating>(entityName: "Rating", predicate: "stars >= 4",
                                                                   sortDescriptors: [SortDescriptor("ratedAt"), SortDescriptor("stars")]), in: main)
        let cutoff = Date(timeIntervalSinceReferenceDate: 30 * Self.day)
        let before = good.objects.count
        let oldGood = good.objects.filter { $0.ratedAt < cutoff }.count
        #expect(before == 1_600 && oldGood > 0)
        let shown = try #require(good.objects.first)
        #expect(shown.ratedAt < cutoff)
        let deleted = try await container.performBackgroundTask { context in
            try context.batchDelete(try FetchRequest<RecipeRating>(entityName: "Rating", predicate: "ratedAt < $CUTOFF", variables: ["CUTOFF": cutoff])).deleted.count
        }
        #expect(deleted == 1_200)   // 30 of the 100 days, two ratings a dish
        var current = good.objects.count
        for _ in 0..<300 where current != before - oldGood {
            try await Task.sleep(for: .milliseconds(10))
            current = good.objects.count
        }
        #expect(current == before - oldGood)
        #expect(good.objects.allSatisfy { $0.ratedAt >= cutoff && $0.stars >= 4 })
        #expect(shown.managedObjectContext == nil)   // a deleted rating left the main context
        // The dishes lost their old ratings (nullify on the inverse), in the store and in new contexts.
        let reader = container.newContext()
        let dish = try #require(try reader.fetch(FetchRequest<RecipeDish>(entityName: "Dish", sortDescriptors: [SortDescriptor("title")], fetchLimit: 1)).first)
        #expect(dish.ratings.allSatisfy { $0.ratedAt >= cutoff })
    }
}
