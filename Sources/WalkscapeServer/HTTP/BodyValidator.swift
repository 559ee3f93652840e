import Foundation
import TourModel

/// Whitelist validation with the live service's messages (its validation pipe forbids unknown keys
/// and names every problem): `property foo should not exist`, `email must be an email`, and for
/// nested values the path first, `events.0.name must be one of the following values: ...`.
struct BodyValidator {
    private(set) var messages: [String] = []
    /// `events.0.` inside a nested object, empty at the top.
    var prefix: String

    init(prefix: String = "") { self.prefix = prefix }

    mutating func fail(_ message: String) { messages.append(prefix + message) }

    /// Every key not in `allowed` is an error naming it.
    mutating func forbidUnknownKeys(_ object: [String: JSONValue], allowed: [String]) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            fail("property \(key) should not exist")
        }
    }

    /// A required non-empty string.
    mutating func requiredString(_ object: [String: JSONValue], _ key: String) -> String? {
        switch object[key] {
        case .string(let s) where !s.isEmpty:
            return s
        case .string:
            fail("\(key) should not be empty")
        case nil, .null:
            fail("\(key) should not be empty")
            fail("\(key) must be a string")
        default:
            fail("\(key) must be a string")
        }
        return nil
    }

    /// An optional string (absent and null both mean not given).
    mutating func optionalString(_ object: [String: JSONValue], _ key: String) -> String? {
        switch object[key] {
        case nil, .null: return nil
        case .string(let s): return s
        default:
            fail("\(key) must be a string")
            return nil
        }
    }

    mutating func optionalBool(_ object: [String: JSONValue], _ key: String) -> Bool? {
        switch object[key] {
        case nil, .null: return nil
        case .bool(let b): return b
        default:
            fail("\(key) must be a boolean value")
            return nil
        }
    }

    /// A string of at least `length` characters (a password).
    mutating func string(_ object: [String: JSONValue], _ key: String, minLength length: Int) -> String? {
        guard case .string(let s) = object[key] else {
            fail("\(key) must be longer than or equal to \(length) characters")
            fail("\(key) must be a string")
            return nil
        }
        guard s.count >= length else {
            fail("\(key) must be longer than or equal to \(length) characters")
            return nil
        }
        return s
    }

    mutating func email(_ object: [String: JSONValue], _ key: String) -> String? {
        guard case .string(let s) = object[key], Self.isEmail(s) else {
            fail("\(key) must be an email")
            return nil
        }
        return s
    }

    /// A plausible address: one `@`, something before it, a dotted domain after, no spaces and no
    /// control character (`TerminalText.isControl`: it would reach logs and admin output).
    static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, text.count <= 254,
            !text.contains(where: { $0.isWhitespace || $0.isNewline }),
            !text.unicodeScalars.contains(where: TerminalText.isControl)
        else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty } && (labels.last?.count ?? 0) >= 2
    }
}
