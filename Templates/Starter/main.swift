import Foundation
import ModelgenRuntime
import Observation

// A container: the model (generated from Library.model.yaml) and a store, here a SQLite file.
let url = FileManager.default.temporaryDirectory.appendingPathComponent("library-\(getpid()).sqlite")
defer { try? FileManager.default.removeItem(at: url) }
let container = try ManagedContainer(model: LibraryModel.model, store: .sqlite(url))

// Insert and save. Generated initializers ask for every value without a default.
let context = container.newContext()
let ursula = Author(context: context, name: "Ursula K. Le Guin")
_ = Book(context: context, title: "The Dispossessed", pages: 387, author: ursula)
_ = Book(context: context, title: "The Lathe of Heaven", pages: 184, author: ursula)
try context.save()

// Fetch with #Predicate, run as SQL, in another context.
let reader = container.newContext()
let long = try reader.fetch(FetchRequest(predicate: #Predicate<Book> { $0.pages > 300 },
                                         sortBy: [SortDescriptor(\.title)]))
print("long books: \(long.map(\.title))")

// Or with the model's fetch request template: a generated function with typed parameters.
let short = try reader.fetch(LibraryModel.shortBooks(maxPages: 200))
print("short books: \(short.map(\.title))")

// Observe: managed objects are Observable (SwiftUI views that read a property redraw when it changes).
let book = long[0], title = book.title
withObservationTracking {
    _ = book.borrowed
} onChange: {
    print("\(title) was borrowed")
}
book.borrowed = true
try reader.save()
print("borrowed: \(try reader.count(for: FetchRequest(predicate: #Predicate<Book> { $0.borrowed })))")
