import Foundation
import Playback
import TourModel
import TourStore

/// Where the application finds a narration's loudness (docs/loudness.md): an installed tour's in
/// the catalog, measured at download; a tour folder's (and `play`'s files') in the loudness cache,
/// by content hash. What is not known yet is measured now and kept.
package enum NarrationLoudness {
    /// Unmeasured narration of at least this many bytes is said before it is measured (`notice`):
    /// about a third of a second here (a 3-hour narration took 6 s, in silence, before a walk
    /// began), several times that on a handheld.
    package static let noticeBytes: Int64 = 4_000_000

    /// Fills in each point's loudness. For an installed tour, narration measured by no walkscape
    /// yet (installed before it measured) is measured and recorded in the catalog. `notice` hears
    /// what is about to be measured, when there is enough of it to be waited for.
    package static func fill(
        _ tour: inout PlayableTour, from resolved: ResolvedTour, settings: Settings,
        notice: (String) -> Void = { _ in }
    ) {
        switch resolved {
        case .folder:
            let known = measure(tour.points.compactMap(\.audio), settings: settings, notice: notice)
            for index in tour.points.indices {
                tour.points[index].loudness = tour.points[index].audio.flatMap { known[$0] }
            }
        case .installed:
            announce(
                tour.points.filter { $0.loudness == nil }.compactMap(\.audio), kept: "in the tour store", notice)
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
    /// out (its playing reports why). `notice` as for `fill`.
    package static func measure(
        _ files: [URL], settings: Settings, notice: (String) -> Void = { _ in }
    ) -> [URL: Loudness] {
        let cache = LoudnessCache(file: settings.paths.loudnessCache)
        let cached = cache.load()
        var found: [URL: Loudness] = [:]
        var unknown: [(url: URL, hash: String)] = []
        for url in Set(files) {
            guard let hash = try? TourStore.contentHash(url) else { continue }
            if let known = cached[hash] { found[url] = known } else { unknown.append((url, hash)) }
        }
        announce(unknown.map(\.url), kept: "in the cache", notice)
        var added: [String: Loudness] = [:]
        for (url, hash) in unknown {
            if let loudness = added[hash] ?? (try? LoudnessMeter.measure(url)) {
                found[url] = loudness
                added[hash] = loudness
            }
        }
        cache.store(added)
        return found
    }

    /// Says that `files` are about to be measured, when they are at least `noticeBytes` in all.
    static func announce(_ files: [URL], kept: String, _ notice: (String) -> Void) {
        let unique = Set(files)
        let bytes = unique.reduce(Int64(0)) { total, url in
            total + ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64) ?? 0)
        }
        guard bytes >= noticeBytes else { return }
        let what = unique.count == 1 ? "1 narration" : "\(unique.count) narrations"
        // Not "once": a narration the meter cannot measure is not kept, and is tried again.
        notice("measuring the loudness of \(what) (\(ByteCount.format(bytes))) before the first play (kept \(kept))")
    }
}
