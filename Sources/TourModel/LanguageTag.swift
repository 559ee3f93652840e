/// Language codes as a walker types them. BCP 47 tags are case-insensitive (`EN` is `en`,
/// `pt-br` is `pt-BR`), so a tag is matched exactly first, then ignoring case, and the tour's own
/// spelling is the one used from then on.
public enum LanguageTag {
    public static func match(_ requested: String, in available: some Sequence<String>) -> String? {
        let list = Array(available)
        if list.contains(requested) { return requested }
        let folded = requested.lowercased()
        return list.first { $0.lowercased() == folded }
    }
}
