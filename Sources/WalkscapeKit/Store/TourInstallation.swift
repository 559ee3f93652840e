import FileAccess
import Foundation
import TourAPI
import TourModel
import TourStore

/// One tour brought into the store from the service, as `download`, `update` and `verify
/// --repair` all do it: plan (details, points, manifests), fetch what is missing, switch, record
/// the analytics events, and tell the walker.
package struct TourInstallation {
    package init(settings: Settings, store: TourStore, reporter: DownloadReporter) {
        self.settings = settings
        self.store = store
        self.reporter = reporter
    }

    package let settings: Settings
    package let store: TourStore
    package let reporter: DownloadReporter
    /// Blobs to fetch again though present (`TourDownloader.refetch`).
    package var refetch: Set<String> = []

    /// Installs (or brings up to date) `languages` of the tour; nil when it already was.
    ///
    /// A tour that changes on the service while it downloads (a curator's edit: a file of another
    /// size, or gone) is planned again once from its new version; what was fetched and is still
    /// in it is kept.
    @discardableResult
    package func run(
        client: APIClient, tourID: String, slug: String, isProtected: Bool,
        languages: [String]
    ) async throws -> InstallReport? {
        // The second attempt is the same download: recorded as started once (for the languages the
        // first did not start), its time counted from the first.
        var began = Attempts()
        do {
            return try await attempt(
                client: client, tourID: tourID, slug: slug, isProtected: isProtected, languages: languages,
                began: &began)
        } catch let error as StoreError where error.kind == .tourChanged {
            reporter.warn("\(error.message); starting again from its new version")
            do {
                return try await attempt(
                    client: client, tourID: tourID, slug: slug, isProtected: isProtected, languages: languages,
                    began: &began)
            } catch let again as StoreError {
                throw AppError.data(
                    "\(again.message) again; run the command later, once the tour stays the same"
                )
            }
        }
    }

    /// What the attempts of one download share: when the first one's files began to download
    /// (nil before), and the languages recorded as started.
    private struct Attempts {
        var date: Date?
        var started: Set<String> = []
    }

    private func attempt(
        client: APIClient, tourID: String, slug: String, isProtected: Bool,
        languages: [String], began: inout Attempts
    ) async throws -> InstallReport? {
        var downloader = TourDownloader(
            store: store, source: DownloadSource(client), audioCheck: StoreAccess.narrationProblem,
            measure: StoreAccess.measureLoudness,
            report: { [reporter] event in reporter.handle(event) })
        downloader.refetch = refetch
        let plan: DownloadPlan
        do {
            plan = try await downloader.plan(
                tourID: tourID, slug: slug, isProtected: isProtected,
                service: StoreAccess.serviceKey(client.service), languages: languages)
        } catch {
            let loggedIn = (try? await client.session.credentials()) != nil
            throw Self.explain(error, slug: slug, loggedIn: loggedIn)
        }
        reporter.planned(plan, again: began.date != nil)
        if plan.isUpToDate {
            reporter.upToDate(plan)
            return nil
        }
        // A download the disk has no room for never starts: no `tour_download_started` for it.
        do { try downloader.checkFreeSpace(plan) } catch { throw AppError(error) }
        let userID = try? await client.session.credentials()?.userID
        let events = StoreEvents(settings: settings, warn: { [reporter] in reporter.warn($0) })
        // Recorded while the files download: its commit waits for the disk, the transfers need not.
        let unstarted = Set(plan.changedLanguages).subtracting(began.started)
        began.started.formUnion(unstarted)
        let recordingStart = Task {
            if !unstarted.isEmpty { await DiskWait.run { events.started(plan, only: unstarted, userID: userID) } }
        }
        let attemptStart = Date()
        let start = began.date ?? attemptStart
        began.date = start
        let report: InstallReport
        do { report = try await downloader.install(plan) } catch {
            await recordingStart.value
            if error.kind == .tourChanged { throw error }
            throw AppError(error)
        }
        await recordingStart.value
        // The event times the whole download; the walker's line, this attempt's bytes and time.
        events.completed(plan, report, seconds: Date().timeIntervalSince(start), userID: userID)
        let seconds = Date().timeIntervalSince(attemptStart)
        var unplayable: [String] = []
        var damaged: [String] = []
        if let installed = try? store.installedTour(id: tourID) {
            for language in report.switchedLanguages {
                for (point, problem) in installed.unplayableAudio(language: language) {
                    unplayable.append(
                        "point \(point.order) (\(point.title)) in '\(language)': its narration does not play (\(problem)); the walk announces the point instead of playing it"
                    )
                }
                for (point, damage) in installed.damagedAudio(language: language) {
                    damaged.append(
                        "point \(point.order) (\(point.title)) in '\(language)': its narration is damaged: \(damage)")
                }
            }
        }
        reporter.finished(plan, report, seconds: seconds, unplayable: unplayable, damaged: damaged)
        return report
    }

    /// A protected tour's 403 says how to unlock it: logged out, a login may be all it takes.
    package static func explain(_ error: StoreError, slug: String, loggedIn: Bool) -> AppError {
        if case .service(.forbidden) = error.kind {
            var explained =
                loggedIn
                ? AppError(
                    kind: .noPermission,
                    message:
                        "\(slug) is locked: unlock it with a voucher (walkscape redeem CODE), then download it again")
                : AppError(
                    kind: .noPermission,
                    message:
                        "\(slug) is protected: log in (walkscape login) with the account that unlocked it, or unlock it with a voucher (walkscape redeem CODE), then try again"
                )
            explained.namesItsSubject = true
            return explained
        }
        return AppError(error)
    }
}
