import Analytics
import Foundation
import TourModel
import TourStore

/// Records the store's analytics events (`tour_download_started`, `tour_download_completed`,
/// `tour_download_deleted`) in the analytics outbox, one per language, with the service's tour id,
/// for the service the tour came from (only its ids may be sent to it).
package struct StoreEvents: Sendable {
    package enum Name: String {
        case started = "tour_download_started"
        case completed = "tour_download_completed"
        case deleted = "tour_download_deleted"
    }

    package let recorder: AnalyticsRecorder
    /// Where a lost event is said (standard error, or a download's reporter).
    package let warn: @Sendable (String) -> Void

    package init(settings: Settings, warn: @escaping @Sendable (String) -> Void = { Console.err($0) }) {
        recorder = AnalyticsRecorder(settings: settings)
        self.warn = warn
    }

    /// Before a removal: the old journal, if there is one, is imported while the tour's service is
    /// still known (the journal does not say where its tours came from, and events of a tour no
    /// longer installed would be taken for a tour folder's, never sent). Nothing when analytics is
    /// off; a failure is said, and the removal goes on.
    package func beforeForgettingTours() {
        guard recorder.enabled, FileManager.default.fileExists(atPath: recorder.settings.paths.legacyJournal.path)
        else { return }
        do { _ = try recorder.outbox() } catch {
            warn("walkscape: warning: \(error.message); its events of a tour removed now will stay on this machine")
        }
    }

    /// `only`: these of the plan's languages (a download planned again records the rest alone).
    package func started(_ plan: DownloadPlan, only: Set<String>? = nil, userID: String?) {
        for language in plan.changedLanguages where only?.contains(language) ?? true {
            record(
                .started, tourID: plan.tourID, service: plan.service, language: language, userID: userID,
                properties: [
                    "manifestVersion": .string(plan.contents[language]?.manifest.version ?? ""),
                    "files": .number(Double(plan.filesToFetch)), "bytes": .number(Double(plan.bytesToFetch)),
                ])
        }
    }

    package func completed(_ plan: DownloadPlan, _ report: InstallReport, seconds: Double, userID: String?) {
        for language in report.switchedLanguages {
            record(
                .completed, tourID: plan.tourID, service: plan.service, language: language, userID: userID,
                properties: [
                    "manifestVersion": .string(plan.contents[language]?.manifest.version ?? ""),
                    "files": .number(Double(report.filesFetched)), "bytes": .number(Double(report.bytesReceived)),
                    "durationSeconds": .number((seconds * 10).rounded() / 10),
                ])
        }
    }

    package func deleted(tourID: String, service: String, languages: [String]) {
        for language in languages {
            record(.deleted, tourID: tourID, service: service, language: language, userID: nil, properties: [:])
        }
    }

    /// A lost event must not fail the download it describes: say so and go on.
    private func record(
        _ name: Name, tourID: String, service: String, language: String, userID: String?,
        properties: [String: JSONValue]
    ) {
        let event = AnalyticsEvent(
            name: name.rawValue, userID: userID, tourID: tourID, language: language, timestamp: Date(),
            properties: properties)
        recorder.recordOrWarn(event, origin: .service(service), warn: warn)
    }
}
