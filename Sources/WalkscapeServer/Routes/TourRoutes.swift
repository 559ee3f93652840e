import Foundation
import HTTPTypes
import Hummingbird
import TourModel

/// `/tours`, `/tours/:id?language=`, `/tours/:id/points`, `/tours/:id/manifest`.
///
/// Authentication is optional everywhere here and a bad token counts as none; `hasAccess` is only in
/// the list when the request was authenticated; points and manifest of a protected tour need a grant.
/// `hasAccess` says whether the user holds a grant, as live: false for a free tour nobody unlocked,
/// whose content is open all the same.
struct TourRoutes: Sendable {
    let services: ServerServices

    func register(on router: Router<ServerContext>) {
        router.get("/tours") { request, _ in try await list(request) }
        router.get("/tours/:id") { request, context in
            let (tour, language, access) = try await resolve(request, context)
            return services.json(
                services.presenter(for: request).detail(tour, language: language, hasAccess: access.granted))
        }
        router.get("/tours/:id/points") { request, context in
            let (tour, language, access) = try await resolve(request, context)
            guard access.open else { throw APIError.forbiddenTour }
            return services.json(try services.presenter(for: request).points(tour, language: language))
        }
        router.get("/tours/:id/manifest") { request, context in
            let (tour, language, access) = try await resolve(request, context)
            guard access.open else { throw APIError.forbiddenTour }
            return services.json(try services.presenter(for: request).manifest(tour, language: language))
        }
    }

    func list(_ request: Request) async throws -> Response {
        let user = await services.authenticator.optionalUser(request)
        let granted = try user.map { Set(try services.vouchers.grants(userID: $0.id).map(\.tourID)) } ?? []
        let presenter = services.presenter(for: request)
        let tours = await services.catalog.current().tours.map { tour in
            presenter.summary(tour, hasAccess: user == nil ? nil : granted.contains(tour.id))
        }
        return services.json(tours)
    }

    /// Whether the caller holds a grant for a tour, and whether it may open its content (a free tour:
    /// anyone).
    struct Access {
        var granted: Bool
        var open: Bool
    }

    /// The tour, the requested language (required: 404 without it, as live) and the caller's access.
    func resolve(_ request: Request, _ context: ServerContext) async throws -> (ServedTour, String, Access) {
        let id = context.parameters.get("id") ?? ""
        guard let tour = await services.catalog.current().byID[id] else {
            throw APIError(.notFound, "Tour with ID \(id) not found")
        }
        let language = request.uri.queryParameters.get("language") ?? ""
        guard tour.folder.languageInfo[language] != nil else {
            throw APIError(
                .notFound,
                language.isEmpty
                    ? "Tour version not found: the language query parameter is required"
                    : "Tour version not found for language '\(language)'")
        }
        var granted = false
        if let user = await services.authenticator.optionalUser(request) {
            granted = try services.vouchers.hasGrant(userID: user.id, tourID: tour.id)
        }
        return (tour, language, Access(granted: granted, open: granted || !tour.folder.isProtected))
    }
}
