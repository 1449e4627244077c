import Foundation
import FuzzSupport
import ModelgenCore

// A custom entity template over a fixed model: parsed and rendered, or refused with an error (a
// partial cycle is one), never a crash or a hang; rendering twice gives the same files.
let check: ModelCheck = {
    let text = """
        model: Fuzz
        entities:
          Person:
            abstract: true
            attributes: { name: string, born: date? }
          Author:
            parent: Person
            attributes: { rating: { type: int16, default: 0 } }
            relationships:
              posts: { destination: Post, toMany: true, ordered: true, inverse: author }
          Post:
            attributes: { title: string, likes: { type: int64, default: 0 } }
            relationships:
              author: { destination: Author, inverse: posts }
        fetchRequests:
          popular: { entity: Post, predicate: 'likes > $MIN' }
        """
    return ModelCheck.run(text: text, path: "Fuzz.model.yaml")
}()
let model = check.validated!

@_cdecl("fuzz_template_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzTemplate(data.map(UnsafeRawPointer.init) ?? UnsafeRawPointer(bitPattern: 1)!, count) }
}

func fuzzTemplate(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard let text = String(data: bytes(start, count), encoding: .utf8),
          let emitter = try? ModelEmitter(templates: ["entity": text]) else { return 0 }
    guard let first = try? emitter.generate(model, options: GenerationOptions()) else { return 0 }
    guard let second = try? emitter.generate(model, options: GenerationOptions()), second == first else {
        violated("rendering is deterministic", text)
    }
    return 0
}
