/// Header fields in order, looked up without regard to case (HTTP field names are case-insensitive).
public struct HTTPHeaderFields: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String
    }

    public private(set) var fields: [Field] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value of `name`; setting replaces every field of that name (nil removes them).
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            remove(name)
            if let newValue { fields.append(Field(name: name, value: newValue)) }
        }
    }

    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
