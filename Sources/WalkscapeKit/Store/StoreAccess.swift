import Foundation
import Playback
import TourAPI
import TourModel
import TourStore

/// How commands reach the content store: where it is, the lock, and the narration check the
/// store cannot make itself (it knows no decoder; Playback's sniffer judges the bytes).
package enum StoreAccess {
    package static func location(_ settings: Settings) -> StoreLocation {
        StoreLocation(dataFolder: settings.paths.data)
    }

    /// The store, created if needed, for a command that changes it; the lock is held until the
    /// returned value is released.
    package static func openForChange(_ settings: Settings, purpose: String) throws(AppError) -> (TourStore, StoreLock)
    {
        let lock = try lockForChange(settings, purpose: purpose)
        do { return (try openLocked(settings), lock) } catch {
            lock.release()
            throw error
        }
    }

    /// The lock alone, for a command that does something else (asks the service) while the store
    /// opens: `openLocked` then.
    package static func lockForChange(_ settings: Settings, purpose: String) throws(AppError) -> StoreLock {
        do { return try StoreLock.acquire(location(settings), purpose: purpose) } catch { throw AppError(error) }
    }

    /// The store, created if needed, for a caller that holds the lock (`lockForChange`); its space
    /// reserve made if it is missing and the disk has room (`SpaceReserve`).
    package static func openLocked(_ settings: Settings) throws(AppError) -> TourStore {
        let store: TourStore
        do { store = try TourStore.open(location(settings)) } catch { throw AppError(error) }
        SpaceReserve.replenish(location(settings))
        return store
    }

    /// As `openForChange`, for a command that frees space (`remove`, `gc`): on a full disk the
    /// store's reserve is given up for the catalog to open. `SpaceFreeing.finish` when it ends.
    package static func openForFreeing(_ settings: Settings, purpose: String) throws(AppError) -> (
        TourStore, StoreLock, SpaceFreeing
    ) {
        let lock = try lockForChange(settings, purpose: purpose)
        let freeing = SpaceFreeing(location(settings))
        do {
            let store = try freeing.run { () throws(StoreError) in try TourStore.open(location(settings)) }
            return (store, lock, freeing)
        } catch {
            freeing.finish()
            lock.release()
            throw AppError(error)
        }
    }

    /// The store if there is one, for a command that only reads (nothing is created).
    package static func openForReading(_ settings: Settings) throws(AppError) -> TourStore? {
        do { return try TourStore.openIfPresent(location(settings)) } catch { throw AppError(error) }
    }

    /// nil when the narration plays (a format walkscape decodes, whose first audio decodes);
    /// otherwise why not ("looks like MP4/AAC but holds no audio stream walkscape can decode").
    @Sendable package static func narrationProblem(_ url: URL) -> String? {
        AudioDecoders.problem(url)
    }

    /// A downloaded narration's loudness, kept in the catalog; nil when it cannot be measured
    /// (the narration check has said why already).
    @Sendable package static func measureLoudness(_ url: URL) -> Loudness? {
        try? LoudnessMeter.measure(url)
    }

    /// The service's key as the store records it with a tour.
    package static func serviceKey(_ url: URL) -> String { ServiceURL.key(url) }
}

/// A command that frees space (`remove`, `gc`) and the store's reserve (`SpaceReserve`): given up
/// when the disk is too full for the catalog to record what the command deletes, and taken back
/// when the command ends (whether it did what it was asked or not) if what it freed leaves room;
/// otherwise a reserve is made only while the disk has room to spare.
package final class SpaceFreeing {
    let location: StoreLocation
    private(set) var gaveUp = false

    init(_ location: StoreLocation) {
        self.location = location
    }

    /// `body`, once more after giving the reserve up if the disk was full.
    package func run<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        do { return try body() } catch  where error.kind == .noSpace {
            guard !gaveUp, SpaceReserve.release(location) else { throw error }
            gaveUp = true
            return try body()
        }
    }

    package func finish() {
        SpaceReserve.replenish(location, needing: gaveUp ? SpaceReserve.freeToTakeBack : SpaceReserve.freeToMake)
    }
}

extension AppError {
    /// The store's failure, with the exit code of its kind.
    package init(_ error: StoreError) {
        let message = error.message + Self.advice(error.remedy)
        switch error.kind {
        case .notFound: self = .notFound(message)
        case .busy: self = AppError(kind: .temporary, message: message)
        case .noSpace, .io, .damaged: self = .failure(message)
        case .badData, .tourChanged: self = .data(message)
        case .cancelled: self = .failure(message)
        case .service(let kind): self = AppError(APIError(kind, error.message, remedy: error.remedy))
        }
    }
}
