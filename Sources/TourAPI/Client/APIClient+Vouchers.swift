import Foundation
import TourModel

extension APIClient {
    /// `POST /vouchers/validate`: unlocks the voucher's own tour (named in the answer, which may not
    /// be the tour the user had in mind). Never re-sent once it may have reached the server,
    /// except after a 401, which says the service did not act on it.
    public func redeem(_ code: String) async throws(APIError) -> VoucherRedemption {
        let code = code.trimmingCharacters(in: .whitespacesAndNewlines)
        let answer = try await call(
            .post, "/vouchers/validate", json: ServiceChannel.json(["code": code]), auth: .required,
            idempotent: false, ifCutOff: "voucher \(code) may have been redeemed all the same: walkscape my-tours tells"
        ) { answer in
            let said = answer.errorBody?.summary
            return switch answer.status {
            case 404: APIError(.notFound, "no voucher \(code): check the code", status: 404)
            case 400:
                APIError(
                    .rejected, "voucher \(code) cannot be used: \(said ?? "expired or used up")", status: 400,
                    serverMessages: answer.errorBody?.messages ?? [])
            case 409: APIError(.alreadyExists, "the tour of voucher \(code) is already unlocked for you", status: 409)
            default: nil
            }
        }
        return try channel.decode(VoucherRedemption.self, from: answer)
    }

    /// `GET /vouchers/my-tours`: the tours unlocked for the user.
    public func myTours() async throws(APIError) -> GrantedTours {
        let answer = try await call(.get, "/vouchers/my-tours", auth: .required, idempotent: true)
        return try channel.decode(GrantedTours.self, from: answer)
    }
}
