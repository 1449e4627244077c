import CYaml
import Foundation

/// Finds the first mapping key that is itself a mapping or a sequence (YAML's "complex keys", `? [a]: b`
/// or `{a: b}: c`), from libyaml's events without composing the document. The model format never uses
/// them, and composing them is what costs: Yams hashes and sorts complex keys to find duplicates, and
/// its comparison of nested keys takes time exponential in their depth (a 850-byte config file held
/// `modelgen` for minutes; found by fuzz-config).
enum YAMLComplexKeys {
    /// Whether the text can hold a complex key at all: an explicit `? ` key, or a flow collection
    /// followed by `:`. Only then are the events read (most files have neither).
    static func mayHave(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
            for (index, byte) in bytes.enumerated() {
                switch byte {
                case UInt8(ascii: "?"):
                    let before = index == 0 ? 0x0A : bytes[index - 1]
                    let after = index + 1 == bytes.count ? 0x0A : bytes[index + 1]
                    if (space.contains(before) || before == UInt8(ascii: ",") || before == UInt8(ascii: "[") || before == UInt8(ascii: "{"))
                        && space.contains(after) { return true }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    var next = index + 1
                    while next < bytes.count, bytes[next] == 0x20 || bytes[next] == 0x09 { next += 1 }
                    if next < bytes.count, bytes[next] == UInt8(ascii: ":") { return true }
                default:
                    continue
                }
            }
            return false
        }
    }

    /// The line and column (1-based) of the first complex key; nil when there is none or the text
    /// is not YAML (the composer then reports that).
    static func first(in text: String) -> (line: Int, column: Int)? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { buffer -> (line: Int, column: Int)? in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            // One entry per open collection: nil for a sequence, for a mapping whether a key comes next.
            var open: [Bool?] = []
            var complexAnchors: Set<String> = []
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { return nil }
                defer { yaml_event_delete(&event) }
                let type = event.type
                let isCollection = type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT
                switch type {
                case YAML_STREAM_END_EVENT:
                    return nil
                case YAML_SCALAR_EVENT, YAML_ALIAS_EVENT, YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                    if let position = open.last, let expectingKey = position {
                        var complex = isCollection
                        if type == YAML_ALIAS_EVENT, let anchor = event.data.alias.anchor {
                            complex = complexAnchors.contains(String(cString: anchor))
                        }
                        if expectingKey && complex {
                            return (Int(event.start_mark.line) + 1, Int(event.start_mark.column) + 1)
                        }
                        open[open.count - 1] = !expectingKey
                    }
                    if type == YAML_SEQUENCE_START_EVENT {
                        if let anchor = event.data.sequence_start.anchor { complexAnchors.insert(String(cString: anchor)) }
                        open.append(nil)
                    } else if type == YAML_MAPPING_START_EVENT {
                        if let anchor = event.data.mapping_start.anchor { complexAnchors.insert(String(cString: anchor)) }
                        open.append(true)
                    }
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    if !open.isEmpty { open.removeLast() }
                default:
                    break
                }
            }
        }
    }
}
