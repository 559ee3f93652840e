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
            if let s = try? decode(String.self, forKey: k), let d = Double(s.trimmingCharacters(in: .whitespaces)) {
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
            return value
        }
        return nil
    }

    /// An id that may be a string or an integer.
    func identifier(_ keys: String...) throws -> String? {
        for key in keys {
            let k = AnyKey(key)
            guard contains(k), try !decodeNil(forKey: k) else { continue }
            if let s = try? decode(String.self, forKey: k) { return s }
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
            if let id = try identifier(key) { return id }
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
        if let language, let t = self[language] { return t }
        return self["en"] ?? self.sorted { $0.key < $1.key }.first?.value
    }
}
