import Foundation

/// A wire shape that can be written in either dialect. Client and server share these types, so what
/// `walkscape-server` sends is by construction what `walkscape` decodes.
public protocol APIEncodable: Sendable {
    func encode(to encoder: any Encoder, dialect: APIDialect) throws
}

extension Array: APIEncodable where Element: APIEncodable {
    public func encode(to encoder: any Encoder, dialect: APIDialect) throws {
        var c = encoder.unkeyedContainer()
        for element in self { try c.encode(APIBody(element, dialect: dialect)) }
    }
}

extension WalkscapeJSON {
    /// The body of a request or an answer, in `dialect`.
    public static func encode(_ value: some APIEncodable, dialect: APIDialect = .live) throws -> Data {
        try encoder().encode(APIBody(value, dialect: dialect))
    }
}

/// Writing with string keys, skipping absent optionals unless the service sends them as `null`.
extension KeyedEncodingContainer where Key == AnyKey {
    mutating func put<T: Encodable>(_ value: T, _ key: String) throws {
        try encode(value, forKey: AnyKey(key))
    }

    mutating func putIfPresent<T: Encodable>(_ value: T?, _ key: String) throws {
        try encodeIfPresent(value, forKey: AnyKey(key))
    }

    /// The live service (Postgres behind an ORM) sends unset columns as `null` rather than leaving them out.
    mutating func putOrNull<T: Encodable>(_ value: T?, _ key: String) throws {
        if let value { try encode(value, forKey: AnyKey(key)) } else { try encodeNil(forKey: AnyKey(key)) }
    }

    mutating func put<T: APIEncodable>(_ value: T, _ key: String, dialect: APIDialect) throws {
        try encode(APIBody(value, dialect: dialect), forKey: AnyKey(key))
    }
}
