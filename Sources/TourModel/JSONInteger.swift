/// A JSON number that must be a whole number, decoded so that a wrong one is reported at its path.
///
/// Foundation's JSONDecoder reports a number that does not fit `Int` (`1.5`, `1e30`) as "the given
/// data was not valid JSON" for the whole document, without a path: a curator who wrote
/// `"order": 1.5` would be sent looking for a syntax error. Decoding through this type says
/// `points[1].order: must be an integer, not 1.5` instead.
public struct JSONInteger: Decodable, Sendable, Hashable {
    public var value: Int

    public init(_ value: Int) { self.value = value }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        do {
            value = try c.decode(Int.self)
        } catch let error as DecodingError {
            throw error  // a string, null, ...: already reported at this path
        } catch {
            // Foundation's own "number not representable" error, which it turns into "not valid JSON"
            // for the whole document if it gets out.
            if let number = try? c.decode(Double.self) {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "must be an integer, not \(number)")
            }
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "is a number out of range")
        }
    }
}
