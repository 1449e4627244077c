import Foundation
import FuzzSupport
import ModelgenCore
import ModelgenPredicate

// A predicate: a parse prints to text that parses to the same tree (printing again gives the same
// text); the type checker, through a fetch request template of a fixed model, reports or accepts it
// without crashing, and a predicate it accepts generates code.
let model = """
    model: Fuzz
    entities:
      Shelf:
        attributes: { label: string }
        relationships:
          books: { destination: Book, toMany: true, inverse: shelf }
      Book:
        attributes:
          title: string
          pages: { type: int16, default: 0 }
          rating: { type: double, default: 0 }
          published: date?
          available: { type: bool, default: true }
        relationships:
          shelf: { destination: Shelf, inverse: books }
          tags: { destination: Tag, toMany: true, inverse: books }
      Tag:
        attributes: { name: string }
        relationships:
          books: { destination: Book, toMany: true, inverse: tags }
    fetchRequests:
      fuzz:
        entity: Book
        predicate: 
    """

@_cdecl("fuzz_predicate_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzPredicate(data.map(UnsafeRawPointer.init) ?? UnsafeRawPointer(bitPattern: 1)!, count) }
}

func fuzzPredicate(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let text = String(data: bytes(start, count), encoding: .utf8) else { return 0 }
    if let parsed = try? PredicateParser.parsePredicate(text) {
        let printed = parsed.description
        guard let again = try? PredicateParser.parsePredicate(printed) else { violated("a printed predicate parses", "\(text)\n→ \(printed)") }
        guard again.description == printed else { violated("printing is stable", "\(printed)\n→ \(again.description)") }
    }
    _ = try? PredicateParser.parseExpression(text)
    // A JSON string is a YAML double-quoted scalar: the predicate reaches the checker as written.
    guard let quoted = try? String(data: JSONEncoder().encode(text), encoding: .utf8) else { return 0 }
    let check = ModelCheck.run(text: model + quoted + "\n", path: "Fuzz.model.yaml")
    if let checked = check.validated {
        do {
            _ = try ModelEmitter().generate(checked, options: GenerationOptions())
        } catch {
            violated("a template that validates generates", "\(text)\n\(error)")
        }
    }
    return 0
}
