// Runs every fetch request template of the Library model and a set of #Predicate queries on the
// in-memory store and on SQLite, prints what each returns, and exits 1 when the stores disagree (or an
// aggregate template's rows differ from the ones worked out by hand).
import Foundation
import Lending
import ModelgenRuntime

let day = Date(timeIntervalSinceReferenceDate: 800_000_000)

/// Two branches, five books, three writers, loans: the same on every store.
func seed(_ container: ManagedContainer) throws {
    let context = container.newContext()
    let central = Branch(context: context, name: "Central", city: "Zürich")
    let north = Branch(context: context, name: "North", city: "zürich")
    let east = Branch(context: context, name: "East", city: "Basel")
    let ada = Writer(context: context, name: "Ada"), bo = Writer(context: context, name: "Bo"), cy = Writer(context: context, name: "Cy")
    ada.country = "CH"; bo.country = "SE"
    let books: [(String, Int16, String?, Branch, [Writer])] = [
        ("Café Stories", 120, "fiction", central, [ada]),
        ("cafe stories II", 180, "fiction", central, [ada, bo]),
        ("Rivers", 450, "nature", north, [bo]),
        ("Mountains", 620, "nature", central, [cy]),
        ("Notes", 40, nil, east, []),
    ]
    for (title, pages, genre, branch, writers) in books {
        let book = Book(context: context, title: title)
        book.pages = pages
        book.genre = genre
        book.branch = branch
        book.writers = Set(writers)
    }
    try context.save()
    let all = try context.fetch(FetchRequest<Book>(sortBy: [SortDescriptor(\Book.title)]))
    // Open loans due before `day`: Rivers 2, Mountains 1, Café Stories 1 (returned ones do not count).
    for (title, returned, offset) in [("Rivers", false, -10.0), ("Rivers", false, -5), ("Rivers", true, -20), ("Mountains", false, -1),
                                      ("Mountains", false, 30), ("Café Stories", false, -3), ("Notes", true, -8)] {
        let loan = Loan(context: context, borrower: "reader", due: day.addingTimeInterval(offset * 86_400))
        loan.returned = returned
        loan.book = all.first { $0.title == title }
    }
    try context.save()
}

func titles(_ books: [Book]) -> String { books.map(\.title).joined(separator: ", ") }

/// Pages per genre, from the aggregate template `pagesPerGenre` in Library.model.yaml: typed rows, one query.
func genreReport(_ context: ManagedObjectContext, minPages: Int64) throws -> [String] {
    try context.aggregate(LibraryModel.pagesPerGenre(minPages: minPages)).map { row in
        "\(row.genre ?? "none"): \(row.books) books, \(row.pages ?? 0) pages, longest \(row.longest ?? 0)"
    }
}

/// A branch city's shelf list, from the projection template `shelfList`: typed rows of the values shown
/// (first members too: the first writer by name, the latest loan's due date).
func shelfList(_ context: ManagedObjectContext, city: String) throws -> [String] {
    try context.fetch(LibraryModel.shelfList(city: city)).map { row in
        "\(row.title) (\(row.pages) p., \(row.genre ?? "no genre"), \(row.branchName ?? "?"), by \(row.writersName ?? "nobody"), "
            + "last due \(row.lastDue.map { String(Int($0.timeIntervalSince(day) / 86_400)) } ?? "-"))"
    }
}

/// Open loans per branch (`openLoansPerBranch`: grouped by a to-one key path and the record it reaches).
func loanReport(_ context: ManagedObjectContext) throws -> [String] {
    try context.aggregate(LibraryModel.openLoansPerBranch()).map { row in
        let days = row.nextDue.map { Int($0.timeIntervalSince(day) / 86_400) }
        return "\(row.bookBranchName ?? "?") (\(row.bookBranch?.entityName ?? "?")): \(row.loans) open, next due in \(days.map(String.init) ?? "-") days"
    }
}

/// What each query returns on one store, as text.
func run(_ container: ManagedContainer) throws -> [(String, String)] {
    let context = container.newContext()
    var results: [(String, String)] = []
    func add(_ name: String, _ value: String) { results.append((name, value)) }
    add("booksOfLength(minPages: 100, maxPages: 500)", titles(try context.fetch(LibraryModel.booksOfLength(minPages: 100, maxPages: 500))))
    add("booksInGenres([fiction, poetry])", titles(try context.fetch(LibraryModel.booksInGenres(genres: ["fiction", "poetry"]))))
    add("booksByWritersFrom([SE])", titles(try context.fetch(LibraryModel.booksByWritersFrom(countries: ["SE"]))))
    add("muchBorrowed(day, overdue: 1)", titles(try context.fetch(LibraryModel.muchBorrowed(day: day, overdue: 1))))
    add("muchBorrowed(day, overdue: 2)", titles(try context.fetch(LibraryModel.muchBorrowed(day: day, overdue: 2))))
    add("titled(CAFE STORIES)", titles(try context.fetch(LibraryModel.titled(title: "CAFE STORIES"))))
    add("branchesIn(ZÜRICH, minBooks: 0)", try context.fetch(LibraryModel.branchesIn(city: "ZÜRICH", minBooks: 0)).map(\.name).joined(separator: ", "))
    let central = try context.fetch(FetchRequest(predicate: #Predicate<Branch> { $0.name == "Central" })).first!
    add("Central.longBooks ($FETCH_SOURCE)", titles(try central.longBooks))
    // #Predicate against the generated classes.
    add("#Predicate pages > 150 && genre != nil", titles(try context.fetch(FetchRequest(
        predicate: #Predicate<Book> { $0.pages > 150 && $0.genre != nil }, sortBy: [SortDescriptor(\Book.title)]))))
    add("#Predicate branch?.city == \"Basel\"", titles(try context.fetch(FetchRequest(
        predicate: #Predicate<Book> { $0.branch?.city == "Basel" }, sortBy: [SortDescriptor(\Book.title)]))))
    add("#Predicate writers.contains { country == \"CH\" }", titles(try context.fetch(FetchRequest(
        predicate: #Predicate<Book> { $0.writers.contains { $0.country == "CH" } }, sortBy: [SortDescriptor(\Book.title)]))))
    add("#Predicate loans.contains { !returned && due < day }", titles(try context.fetch(FetchRequest(
        predicate: #Predicate<Book> { $0.loans.contains { !$0.returned && $0.due < day } }, sortBy: [SortDescriptor(\Book.title)]))))
    add("#Predicate writers.count >= 1, by pages desc", titles(try context.fetch(FetchRequest(
        predicate: #Predicate<Book> { $0.writers.count >= 1 }, sortBy: [SortDescriptor(\Book.pages, order: .reverse)]))))
    // Aggregate templates of the model file: typed rows.
    add("genreReport(minPages: 100)", try genreReport(context, minPages: 100).joined(separator: "; "))
    add("genreReport(minPages: 0)", try genreReport(context, minPages: 0).joined(separator: "; "))
    add("loanReport", try loanReport(context).joined(separator: "; "))
    // A projection template of the model file: typed rows.
    add("shelfList(city: ZÜRICH)", try shelfList(context, city: "ZÜRICH").joined(separator: "; "))
    return results
}

/// What the aggregate templates must give, worked out by hand from `seed` (so two stores agreeing on a
/// wrong answer still fail).
let expectedReports = [
    "genreReport(minPages: 100)": "nature: 2 books, 1070 pages, longest 620; fiction: 2 books, 300 pages, longest 180",
    "genreReport(minPages: 0)": "nature: 2 books, 1070 pages, longest 620; fiction: 2 books, 300 pages, longest 180; none: 1 books, 40 pages, longest 40",
    "loanReport": "Central (Branch): 3 open, next due in -3 days; North (Branch): 2 open, next due in -10 days",
    "shelfList(city: ZÜRICH)": "Café Stories (120 p., fiction, Central, by Ada, last due -3); Mountains (620 p., nature, Central, by Cy, last due 30); "
        + "Rivers (450 p., nature, North, by Bo, last due -5); cafe stories II (180 p., fiction, Central, by Ada, last due -)",
]

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("library-check-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let memory = try ManagedContainer(model: LibraryModel.model, store: .inMemory)
let sqlite = try ManagedContainer(model: LibraryModel.model, store: .sqlite(directory.appendingPathComponent("Library.sqlite")))
var inMemoryFetches = 0
sqlite.onInMemoryFetch { fetch in
    print("evaluated in memory on SQLite: \(fetch)")
}
try seed(memory)
try seed(sqlite)
let fromMemory = try run(memory)
let fromSQLite = try run(sqlite)
var same = true
for ((name, inMemory), (_, onSQLite)) in zip(fromMemory, fromSQLite) {
    print("\(name): \(onSQLite)")
    if inMemory != onSQLite {
        same = false
        print("  but in memory: \(inMemory)")
    }
    if let expected = expectedReports[name], expected != onSQLite {
        same = false
        print("  but expected: \(expected)")
    }
}
print("same results on both stores: \(same)")
exit(same ? 0 : 1)
