import Analytics
import Foundation
import TourAPI
import TourModel

/// Where events come from, decided by the command line, which knows where a tour came from.
package struct EventOrigins: Sendable {
    /// The configured service's key, if one is configured.
    package var configured: String?
    /// The service of the saved login, if any.
    package var loggedIn: String?
    /// Installed tours' services, by tour id.
    package var installed: [String: String]

    package init(settings: Settings) {
        configured = AnalyticsStorage.serviceKey(settings)
        loggedIn = (try? CredentialsFile(url: settings.paths.credentialsFile).load())??.service
        installed = InstalledServices.read(settings)
    }

    /// For an event of the journal walkscape kept before the outbox, which did not say where its
    /// tours came from: a tour installed from a service is that service's; account events came
    /// from the service logged in to (else the configured one); download events from the configured
    /// service; anything else was a tour folder's, and stays local.
    package func ofJournalEvent(_ event: AnalyticsEvent) -> EventOrigin {
        if let tour = event.tourID, let service = installed[tour] { return .service(service) }
        let from: String?
        switch event.name {
        case "login", "signup", "voucher_redeemed": from = loggedIn ?? configured
        case "tour_download_started", "tour_download_completed", "tour_download_deleted": from = configured
        default: from = nil
        }
        return from.map(EventOrigin.service) ?? .local
    }
}
