import Foundation
import JWTKit

/// An access token's payload, exactly the live service's: `sub`, `email`, `iat`, `exp`.
struct AccessClaims: JWTPayload, Equatable {
    var sub: SubjectClaim
    var email: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try exp.verifyNotExpired()
    }
}
