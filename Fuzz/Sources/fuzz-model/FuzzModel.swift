import Foundation
import FuzzSupport
import ModelgenCore

// A model file: parse, validate, and when it validates, generate (must not throw) code that holds no
// invisible character but line feeds and tabs (a model string reaches the code only escaped, and no
// line break can end a comment and make code: the security note of docs/reliability.md); format is
// idempotent (format(format(x)) == format(x)).
@_cdecl("fuzz_model_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzModel(data.map(UnsafeRawPointer.init) ?? UnsafeRawPointer(bitPattern: 1)!, count) }
}

func fuzzModel(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = bytes(start, count)
    let check = ModelCheck.run(data: data, path: "Fuzz.model.yaml")
    if let model = check.validated {
        do {
            for file in try ModelEmitter().generate(model, options: GenerationOptions()) {
                if let scalar = file.contents.unicodeScalars.first(where: { $0 != "\n" && $0 != "\t" && isInvisible($0) }) {
                    violated("generated code holds no invisible character", "U+\(String(scalar.value, radix: 16)) in \(file.name):\n\(file.contents)")
                }
            }
        } catch {
            violated("a model that validates generates", "\(error)")
        }
    }
    if case .success(let once) = ModelFormatter.format(data: data, path: "Fuzz.model.yaml") {
        switch ModelFormatter.format(data: Data(once.utf8), path: "Fuzz.model.yaml") {
        case .success(let twice) where twice == once: break
        case .success(let twice): violated("format(format(x)) == format(x)", "once:\n\(once)\ntwice:\n\(twice)")
        case .failure(let diagnostics): violated("formatted text formats again", "\(once)\n\(diagnostics.all)")
        }
    }
    return 0
}

/// Control, format, separator and unassigned characters (Unicode Cc, Cf, Zl, Zp, Cn), as SwiftLiterals.isInvisible.
func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned: return true
    default: return false
    }
}
