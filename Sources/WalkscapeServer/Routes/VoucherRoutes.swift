import Foundation
import HTTPTypes
import Hummingbird
import Logging
import TourModel

/// `POST /vouchers/validate` and `GET /vouchers/my-tours` (bearer token required for both).
struct VoucherRoutes: Sendable {
    let services: ServerServices

    func register(on router: Router<ServerContext>) {
        router.post("/vouchers/validate") { request, _ in try await validate(request) }
        router.get("/vouchers/my-tours") { request, _ in
            let user = try await services.authenticator.requireUser(request)
            let tours = await services.catalog.current().byID
            let entries = try services.vouchers.grants(userID: user.id).map { grant in
                let folder = tours[grant.tourID]?.folder
                return GrantedTours.Entry(
                    tourID: grant.tourID, tourTitle: folder.map { title(of: $0, for: user) },
                    tourSlug: folder?.slug, grantedAt: grant.grantedAt)
            }
            return services.json(GrantedTours(tours: entries))
        }
    }

    func validate(_ request: Request) async throws -> Response {
        // The guard runs before the body is looked at, as live: no token, no validation messages.
        let user = try await services.authenticator.requireUser(request)
        let body = try await services.body(of: request)
        var v = BodyValidator()
        v.forbidUnknownKeys(body, allowed: ["code"])
        let code = v.requiredString(body, "code")
        guard v.messages.isEmpty, let code else { throw APIError.validation(v.messages) }
        let snapshot = await services.catalog.current()
        let served = Set(snapshot.byID.keys)
        switch try services.vouchers.redeem(code: code, userID: user.id, tourExists: { served.contains($0) }) {
        case .failure(.unknownCode):
            throw APIError(.notFound, "Invalid voucher code")
        case .failure(.expired):
            throw APIError(.badRequest, "Voucher has expired")
        case .failure(.exhausted):
            throw APIError(.badRequest, "Voucher has reached its maximum number of uses")
        case .failure(.notTiedToATour):
            throw APIError(.badRequest, "Voucher is not linked to a tour")
        case .failure(.alreadyGranted):
            throw APIError(.conflict, "You already have access to this tour")
        case .success(let voucher):
            let tourID = voucher.tourId ?? ""
            let folder = snapshot.byID[tourID]?.folder
            services.logger.info(
                "voucher redeemed", metadata: ["code": "\(voucher.code)", "tour": "\(tourID)", "user": "\(user.email)"])
            return services.json(
                VoucherRedemption(
                    success: true, message: "Voucher redeemed successfully", tourID: tourID,
                    tourTitle: folder.map { title(of: $0, for: user) }, tourSlug: folder?.slug,
                    code: voucher.code, validUntil: voucher.validUntil),
                status: .created)
        }
    }

    /// The tour's title in the user's language, else the tour's default one.
    func title(of folder: TourFolder, for user: UserRecord) -> String {
        (folder.languageInfo[user.preferredLanguage] ?? folder.languageInfo[folder.defaultLanguage])?.title
            ?? folder.slug
    }
}
