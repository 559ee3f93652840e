import Foundation
import JWTKit

/// A refresh token's payload: the access claims plus `jti`, the id that makes each refresh token
/// usable once (rotation). Signed with a key of its own, so it never passes for an access token.
struct RefreshClaims: JWTPayload, Equatable {
    var sub: SubjectClaim
    var email: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    var jti: IDClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
