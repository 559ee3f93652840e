/// A JSON number decoded so that one beyond `Double`'s range (`1e400`) is reported at its path.
///
/// Foundation's JSONDecoder calls such a number "not valid JSON" for the whole document, without
/// a path; see `JSONInteger`.
public struct JSONNumber: Decodable, Sendable, Hashable {
    public var value: Double

    public init(_ value: Double) { self.value = value }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        do {
            value = try c.decode(Double.self)
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "is a number out of range")
        }
    }
}
