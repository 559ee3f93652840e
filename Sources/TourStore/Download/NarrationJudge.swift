import Foundation
import Synchronization
import TourModel

/// Whether each narration blob plays, and how loud it is, worked out once per blob: for a fetched
/// narration as soon as it is in the store (beside the transfers still running), for one the store
/// had before the download when the switch is prepared.
final class NarrationJudge: Sendable {
    private let audioCheck: @Sendable (URL) -> String?
    private let measure: (@Sendable (URL) -> Loudness?)?
    /// Blobs whose loudness the catalog has already: not measured again.
    private let alreadyMeasured: [String: Loudness]
    private let state = Mutex<(problems: [String: String?], measured: [String: Loudness])>(([:], [:]))

    init(
        audioCheck: @escaping @Sendable (URL) -> String?, measure: (@Sendable (URL) -> Loudness?)?,
        alreadyMeasured: [String: Loudness]
    ) {
        self.audioCheck = audioCheck
        self.measure = measure
        self.alreadyMeasured = alreadyMeasured
    }

    /// What is wrong with the blob as narration (nil: it plays), measuring its loudness the first
    /// time when it plays and the catalog lacks it.
    func problem(_ sha256: String, at url: URL) -> String? {
        if let known = state.withLock({ $0.problems[sha256] }) { return known }
        let problem = audioCheck(url)
        var loudness: Loudness?
        if problem == nil, let measure, alreadyMeasured[sha256] == nil { loudness = measure(url) }
        state.withLock {
            $0.problems[sha256] = problem
            if let loudness { $0.measured[sha256] = loudness }
        }
        return problem
    }

    /// The loudness measured during this download, by blob.
    var measured: [String: Loudness] { state.withLock { $0.measured } }
}
