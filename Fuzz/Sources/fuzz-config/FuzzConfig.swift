import Foundation
import FuzzSupport
import ModelgenCore

// modelgen.yml (the project config) and modelgen-config.yaml (the plugin's options): read or refused
// with diagnostics, never a crash; a config read once reads the same again.
@_cdecl("fuzz_config_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzConfig(data.map(UnsafeRawPointer.init) ?? UnsafeRawPointer(bitPattern: 1)!, count) }
}

func fuzzConfig(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = bytes(start, count)
    let project = ProjectConfig.parse(data: data, path: "modelgen.yml")
    if let config = project.config {
        let again = ProjectConfig.parse(data: data, path: "modelgen.yml")
        guard again.config?.entries.map(\.path) == config.entries.map(\.path) else { violated("reading is deterministic", "\(config)") }
    }
    _ = try? GeneratorConfig.parse(data: data, path: "modelgen-config.yaml")
    return 0
}
