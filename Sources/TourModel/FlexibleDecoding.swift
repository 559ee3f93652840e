import Foundation

/// A coding key for any string, so one decoder can read both API dialects.
struct AnyKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int?
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

extension KeyedDecodingContainer where Key == AnyKey {
    /// The first of `keys` present and not null, decoded as `T`.
    func first<T: Decodable>(_ type: T.Type, _ keys: String...) throws -> T? {
        for key in keys {
            let k = AnyKey(key)
            if contains(k), try !decodeNil(forKey: k) {
                return try decode(T.self, forKey: k)
            }
        }
        return nil
    }

    /// Like `first`, but a missing value is an error naming the live key.
    func require<T: Decodable>(_ type: T.Type, _ keys: String...) throws -> T {
        for key in keys {
            let k = AnyKey(key)
            if contains(k), try !decodeNil(forKey: k) {
                return try decode(T.self, forKey: k)
            }
        }
        throw DecodingError.keyNotFound(
            AnyKey(keys[0]),
            .init(
                codingPath: codingPath,
                debugDescription: "none of \(keys.joined(separator: ", ")) is present"))
    }

    /// A number that may arrive as a JSON number or as a numeric string (Postgres decimals do).
    func number(_ keys: String...) throws -> Double? {
        for key in keys {
            let k = AnyKey(key)
            guard contains(k), try !decodeNil(forKey: k) else { continue }
            if let d = try? decode(Double.self, forKey: k) { return d }
            if let s = try? decode(String.self, forKey: k) {
                let text = s.trimmingCharacters(in: .whitespaces)
                // A decimal number, as a database writes one: not a hex float, "nan" or "inf".
                guard Self.isDecimal(text), let d = Double(text) else {
                    throw DecodingError.dataCorrupted(
                        .init(
                            codingPath: codingPath + [k],
                            debugDescription: "\(key) '\(TerminalText.line(String(text.prefix(40))))' is not a number"))
                }
                return d
            }
            throw DecodingError.typeMismatch(
                Double.self,
                .init(
                    codingPath: codingPath + [k],
                    debugDescription: "expected a number"))
        }
        return nil
    }

    /// `number(keys)`, refused unless within `range` (`TourLimits`): the service's numbers are held
    /// to a tour folder's limits.
    func number(_ keys: String..., within range: ClosedRange<Double>) throws -> Double? {
        for key in keys {
            let k = AnyKey(key)
            guard contains(k), try !decodeNil(forKey: k) else { continue }
            let value = try number(key)
            if let value, let problem = TourLimits.problem(value, range) {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: codingPath + [k], debugDescription: "\(key) \(problem)"))
            }
            // -0 is 0 (shown, it would be "-0.0 km"): adding +0 turns it into +0, nothing else.
            return value.map { $0 + 0 }
        }
        return nil
    }

    /// `number(keys, within: range)` that must also be whole (a count of bytes): a fraction is
    /// refused, not cut off.
    func wholeNumber(_ keys: String..., within range: ClosedRange<Double>) throws -> Double? {
        for key in keys {
            let k = AnyKey(key)
            guard contains(k), try !decodeNil(forKey: k) else { continue }
            let value = try number(key, within: range)
            if let value, value != value.rounded(.towardZero) {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: codingPath + [k], debugDescription: "\(key) \(value) is not a whole number"))
            }
            return value
        }
        return nil
    }

    /// `text` unless it holds a control character (`TerminalText.isControl`: C0, DEL, C1).
    static func withoutControls(_ text: String, _ key: String, _ path: [any CodingKey]) throws -> String {
        guard text.unicodeScalars.contains(where: TerminalText.isControl) else { return text }
        throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(key) holds a control character"))
    }

    /// A slug: as an id, no control character.
    func slug() throws -> String? {
        try first(String.self, "slug").map { try Self.withoutControls($0, "slug", codingPath + [AnyKey("slug")]) }
    }

    /// `-`, digits, then optionally `.` and digits, then optionally an exponent: a JSON number's
    /// form (leading zeros allowed).
    static func isDecimal(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Bool {
            let count = bytes.prefix(while: { (0x30...0x39).contains($0) }).count
            bytes = bytes.dropFirst(count)
            return count > 0
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        guard digits() else { return false }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            guard digits() else { return false }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() else { return false }
        }
        return bytes.isEmpty
    }

    /// An id that may be a string or an integer. One holding a control character is refused: the
    /// catalog (SQLite's C strings) kept only what came before a NUL.
    func identifier(_ keys: String...) throws -> String? {
        for key in keys {
            let k = AnyKey(key)
            guard contains(k), try !decodeNil(forKey: k) else { continue }
            if let s = try? decode(String.self, forKey: k) { return try Self.withoutControls(s, key, codingPath + [k]) }
            if let i = try? decode(Int.self, forKey: k) { return String(i) }
            throw DecodingError.typeMismatch(
                String.self,
                .init(
                    codingPath: codingPath + [k],
                    debugDescription: "expected an identifier"))
        }
        return nil
    }

    /// Like `identifier`, but a missing id is an error.
    func requireIdentifier(_ keys: String...) throws -> String {
        for key in keys {
            if let id = try identifier(key) {
                // Nothing could be asked for by an empty id (`/tours/?language=en`).
                guard !id.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: codingPath + [AnyKey(key)], debugDescription: "\(key) is empty"))
                }
                return id
            }
        }
        throw DecodingError.keyNotFound(
            AnyKey(keys[0]),
            .init(
                codingPath: codingPath,
                debugDescription: "\(keys[0]) is required"))
    }

    func nested(_ key: String) throws -> KeyedDecodingContainer<AnyKey>? {
        let k = AnyKey(key)
        guard contains(k), try !decodeNil(forKey: k) else { return nil }
        return try nestedContainer(keyedBy: AnyKey.self, forKey: k)
    }
}

/// Text per language code, as the live API sends titles (`{"en": "...", "it": "..."}`).
public typealias LocalizedText = [String: String]

extension LocalizedText {
    /// The text in `language`, else English, else any, so a missing translation never blanks a title.
    public func best(_ language: String?) -> String? {
        if let language, let tag = LanguageTag.match(language, in: keys), let t = self[tag] { return t }
        return self["en"] ?? self.sorted { $0.key < $1.key }.first?.value
    }
}
