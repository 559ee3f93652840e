import Foundation
import TourAPI
import TourModel

/// The latest manifest of each language being downloaded. When a signed URL expires, every
/// transfer of that language needs a new one at about the same moment: the first asks the
/// service, the others get the manifest it brought back.
actor ManifestBook {
    private struct Entry {
        var manifest: TourManifest
        var fetchedAt: Date
        /// False once a manifest arrived already expired by our clock: this machine's clock is
        /// off, so expiry times are ignored and only a 403 says a URL is dead.
        var trustExpiry: Bool
    }

    private let source: any TourSource
    private let tourID: String
    private let now: @Sendable () -> Date
    private var entries: [String: Entry] = [:]
    private var inFlight: [String: Task<Entry, any Error>] = [:]
    /// How many manifests were fetched again (for the report).
    private(set) var renewals = 0

    init(
        source: any TourSource, tourID: String, manifests: [String: TourManifest], fetchedAt: Date,
        now: @escaping @Sendable () -> Date
    ) {
        self.source = source
        self.tourID = tourID
        self.now = now
        for (language, manifest) in manifests {
            entries[language] = Entry(
                manifest: manifest, fetchedAt: fetchedAt, trustExpiry: Self.fresh(manifest, at: fetchedAt))
        }
    }

    /// Whether expiry times of `language`'s URLs can be believed.
    func trustsExpiry(_ language: String) -> Bool { entries[language]?.trustExpiry ?? false }

    /// The file `reference` names in a manifest fetched after `since` (fetching one when the
    /// newest is older), and when that manifest was fetched.
    func renewed(_ reference: FileReference, since: Date) async throws(StoreError) -> (
        file: MediaFile?, fetchedAt: Date
    ) {
        let language = reference.language
        if let entry = entries[language], entry.fetchedAt > since {
            return (reference.find(in: entry.manifest), entry.fetchedAt)
        }
        let task: Task<Entry, any Error>
        if let running = inFlight[language] {
            task = running
        } else {
            let source = self.source, tourID = self.tourID, now = self.now
            task = Task {
                let manifest = try await source.manifest(ofTour: tourID, language: language)
                let at = now()
                return Entry(manifest: manifest, fetchedAt: at, trustExpiry: Self.fresh(manifest, at: at))
            }
            inFlight[language] = task
            renewals += 1
        }
        let entry: Entry
        do {
            entry = try await task.value
        } catch let error as APIError {
            inFlight[language] = nil
            throw StoreError(error)
        } catch {
            inFlight[language] = nil
            throw StoreError(.cancelled, "cancelled")
        }
        inFlight[language] = nil
        if (entries[language]?.fetchedAt ?? .distantPast) < entry.fetchedAt { entries[language] = entry }
        return (reference.find(in: entry.manifest), entry.fetchedAt)
    }

    private static func fresh(_ manifest: TourManifest, at moment: Date) -> Bool {
        guard let expiry = manifest.expiresAt else { return true }
        return expiry > moment
    }
}
