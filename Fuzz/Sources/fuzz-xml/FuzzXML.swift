import Foundation
import FuzzSupport
import ModelgenCore

// Xcode model XML: an import that succeeds is a model that validates, and importing its export gives
// back the same model file.
@_cdecl("fuzz_xml_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzXML(data.map(UnsafeRawPointer.init) ?? UnsafeRawPointer(bitPattern: 1)!, count) }
}

func fuzzXML(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let imported = XcodeModelImport.convert(data: bytes(start, count), contentsPath: "Fuzz.xcdatamodel/contents", modelName: "Fuzz", source: "Fuzz.xcdatamodel")
    guard !imported.hasErrors, let text = imported.text else { return 0 }
    let check = ModelCheck.run(text: text, path: "Fuzz.model.yaml")
    guard !check.hasErrors, let model = check.model else { violated("an import validates", "\(text)\n\(check.diagnostics)") }
    let xml = XcodeModelExporter.export(model).xml
    let again = XcodeModelImport.convert(data: Data(xml.utf8), contentsPath: "Fuzz.xcdatamodel/contents", modelName: "Fuzz", source: "Fuzz.xcdatamodel")
    guard let second = again.text, !again.hasErrors else { violated("an export imports", "\(xml)\n\(again.diagnostics)") }
    guard withoutHeader(second) == withoutHeader(text) else { violated("import(export(m)) == m", "first:\n\(text)\nsecond:\n\(second)") }
    return 0
}
