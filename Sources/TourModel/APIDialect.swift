import Foundation

/// The two shapes the service's JSON comes in: what the running service sends (`live`, the
/// contract) and what its published guide documents (`guide`). Decoders read both without being
/// told; encoders (the local server, tests) must be told which one to write.
public enum APIDialect: String, Sendable, Hashable, CaseIterable {
    case live
    case guide
}

/// A wire shape that can be written in either dialect. Client and server share these types, so what
/// `walkscape-server` sends is by construction what `walkscape` decodes.
public protocol APIEncodable: Sendable {
    func encode(to encoder: any Encoder, dialect: APIDialect) throws
}

/// Adapts an `APIEncodable` to `Encodable` for one dialect.
public struct APIBody<Value: APIEncodable>: Encodable {
    public var value: Value
    public var dialect: APIDialect

    public init(_ value: Value, dialect: APIDialect) {
        self.value = value
        self.dialect = dialect
    }

    public func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder, dialect: dialect)
    }
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
