/// Renders a Codable coding path the way a person reads JSON: `points[2].location.lat`.
public enum JSONPath {
    public static func render(_ path: [any CodingKey]) -> String {
        var out = ""
        for key in path {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                if !out.isEmpty { out += "." }
                out += key.stringValue
            }
        }
        return out
    }

    public static func render(_ path: [any CodingKey], appending key: String) -> String {
        let base = render(path)
        return base.isEmpty ? key : "\(base).\(key)"
    }
}
