import Foundation
import TourAPI

/// The rules for an API base URL (docs/api-contract.md, "Base URL"; `ServiceURL`): http(s) only, and plain http
/// only to loopback hosts unless the user explicitly allows it.
package enum APIEndpoint {
    package static func validate(_ text: String, allowInsecure: Bool) -> Result<URL, AppError> {
        ServiceURL.validate(text, allowInsecureHTTP: allowInsecure).mapError(AppError.init)
    }
}
