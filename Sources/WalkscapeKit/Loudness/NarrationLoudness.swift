import Foundation
import Playback
import TourModel
import TourStore

/// Where the application finds a narration's loudness (docs/loudness.md): an installed tour's in
/// the catalog, measured at download; a tour folder's (and `play`'s files') in the loudness cache,
/// by content hash. What is not known yet is measured now and kept.
package enum NarrationLoudness {
    /// Fills in each point's loudness. For an installed tour, narration measured by no walkscape
    /// yet (installed before it measured) is measured and recorded in the catalog.
    package static func fill(_ tour: inout PlayableTour, from resolved: ResolvedTour, settings: Settings) {
        switch resolved {
        case .folder:
            let known = measure(tour.points.compactMap(\.audio), settings: settings)
            for index in tour.points.indices {
                tour.points[index].loudness = tour.points[index].audio.flatMap { known[$0] }
            }
        case .installed:
            var measured: [String: Loudness] = [:]
            for index in tour.points.indices where tour.points[index].loudness == nil {
                guard let audio = tour.points[index].audio, let loudness = try? LoudnessMeter.measure(audio) else {
                    continue
                }
                tour.points[index].loudness = loudness
                measured[audio.lastPathComponent] = loudness
            }
            if !measured.isEmpty, let store = try? StoreAccess.openForReading(settings) {
                try? store.recordLoudness(measured)
            }
        }
    }

    /// How `lint` learns loudness: for an installed tour, the catalog's (its files are blobs named
    /// by their hash), else measured and recorded; for a folder, through the cache.
    package static func measurer(installed: Bool, settings: Settings) -> @Sendable ([URL]) -> [URL: Loudness] {
        guard installed else { return { urls in measure(urls, settings: settings) } }
        return { urls in
            let store = try? StoreAccess.openForReading(settings)
            let known = (try? store?.knownLoudness()) ?? [:]
            var found: [URL: Loudness] = [:]
            var measured: [String: Loudness] = [:]
            for url in urls {
                if let loudness = known[url.lastPathComponent] {
                    found[url] = loudness
                } else if let loudness = try? LoudnessMeter.measure(url) {
                    found[url] = loudness
                    measured[url.lastPathComponent] = loudness
                }
            }
            try? store?.recordLoudness(measured)
            return found
        }
    }

    /// The loudness of each file that plays, through the cache; a file that does not play is left
    /// out (its playing reports why).
    package static func measure(_ files: [URL], settings: Settings) -> [URL: Loudness] {
        let cache = LoudnessCache(file: settings.paths.loudnessCache)
        var cached = cache.load()
        var found: [URL: Loudness] = [:]
        var added: [String: Loudness] = [:]
        for url in files where found[url] == nil {
            guard let hash = try? TourStore.contentHash(url) else { continue }
            if let known = cached[hash] {
                found[url] = known
            } else if let loudness = try? LoudnessMeter.measure(url) {
                found[url] = loudness
                added[hash] = loudness
                cached[hash] = loudness
            }
        }
        cache.store(added)
        return found
    }
}
