import Foundation
import TourModel
import TourStore
import Walk

/// Records the store's analytics events (`tour_download_started`, `tour_download_completed`,
/// `tour_download_deleted`) in the journal the outbox sends from, one per language, with the
/// service's tour id (only ids from the service may be sent).
struct StoreEvents {
    enum Name: String {
        case started = "tour_download_started"
        case completed = "tour_download_completed"
        case deleted = "tour_download_deleted"
    }

    let journal: EventJournal

    init(settings: Settings) {
        journal = EventJournal(url: settings.paths.outbox)
    }

    func started(_ plan: DownloadPlan, userID: String?) {
        for language in plan.changedLanguages {
            record(.started, tourID: plan.tourID, language: language, userID: userID, properties: [
                "manifestVersion": .string(plan.contents[language]?.manifest.version ?? ""),
                "files": .number(Double(plan.filesToFetch)), "bytes": .number(Double(plan.bytesToFetch)),
            ])
        }
    }

    func completed(_ plan: DownloadPlan, _ report: InstallReport, seconds: Double, userID: String?) {
        for language in report.switchedLanguages {
            record(.completed, tourID: plan.tourID, language: language, userID: userID, properties: [
                "manifestVersion": .string(plan.contents[language]?.manifest.version ?? ""),
                "files": .number(Double(report.filesFetched)), "bytes": .number(Double(report.bytesReceived)),
                "durationSeconds": .number((seconds * 10).rounded() / 10),
            ])
        }
    }

    func deleted(tourID: String, languages: [String]) {
        for language in languages { record(.deleted, tourID: tourID, language: language, userID: nil, properties: [:]) }
    }

    /// A lost event must not fail the download it describes: say so and go on.
    private func record(_ name: Name, tourID: String, language: String, userID: String?, properties: [String: JSONValue]) {
        let event = AnalyticsEvent(name: name.rawValue, userID: userID, tourID: tourID, language: language, timestamp: Date(),
                                   properties: properties)
        do { try journal.append(event) } catch {
            Console.err("walkscape: warning: \(error.message)")
        }
    }
}
