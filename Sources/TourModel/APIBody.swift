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
