import Foundation

/// Finds the tour a person means among candidates (the service's catalog; installed tours later):
/// by id, by slug, or by a title prefix in any language. Case and accents do not matter. A name
/// that fits several tours is a usage error listing them, never a guess.
package struct TourMatcher<Candidate> {
    package var id: (Candidate) -> String
    package var slug: (Candidate) -> String
    /// Every title of the tour, in every language.
    package var titles: (Candidate) -> [String]
    /// How a candidate is listed when a name is ambiguous: `slug (Title)`.
    package var label: (Candidate) -> String

    package func match(_ query: String, in candidates: [Candidate]) throws(AppError) -> Candidate {
        let wanted = Self.fold(query)
        guard !wanted.isEmpty else { throw AppError.usage("name a tour by its id, slug or title") }
        if let hit = candidates.first(where: { Self.fold(id($0)) == wanted }) { return hit }
        let bySlug = candidates.filter { Self.fold(slug($0)) == wanted }
        if bySlug.count == 1 { return bySlug[0] }
        if bySlug.count > 1 {
            // The service gave one slug to several tours: only an id tells them apart.
            let ids = bySlug.map(id).sorted().joined(separator: ", ")
            throw AppError.usage("'\(query)' is the slug of \(bySlug.count) tours (ids \(ids)); name one by its id")
        }
        let exact = candidates.filter { titles($0).contains { Self.fold($0) == wanted } }
        if exact.count == 1 { return exact[0] }
        let prefixed =
            exact.isEmpty ? candidates.filter { titles($0).contains { Self.fold($0).hasPrefix(wanted) } } : exact
        switch prefixed.count {
        case 1:
            return prefixed[0]
        case 0:
            throw AppError.notFound("no tour matches '\(query)' (walkscape tours lists them)")
        default:
            let names = prefixed.map(label).sorted().joined(separator: ", ")
            throw AppError.usage(
                "'\(query)' could be any of \(prefixed.count) tours: \(names); name one by its slug or id")
        }
    }

    package static func fold(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespacesAndNewlines).folding(
            options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
