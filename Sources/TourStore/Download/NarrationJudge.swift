import Foundation
import Synchronization
import TourModel

/// Whether each narration blob plays, and how loud it is, worked out once per blob: for a fetched
/// narration as soon as it is in the store (beside the transfers still running, `judgeAside`), for
/// one the store had before the download when the switch is prepared.
final class NarrationJudge: Sendable {
    /// Where fetched narrations are judged, one at a time: decoding a narration (its loudness is
    /// measured over all of it) is CPU work the transfers' threads must not wait behind, and one
    /// at a time leaves the other core to them.
    private let queue = DispatchQueue(label: "walkscape.narration-judge")
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

    /// Judges a fetched narration on the judge's own thread, after those before it; not at all
    /// when the download is cancelled before its turn (one being decoded then runs to its end).
    func judgeAside(_ sha256: String, at url: URL) async {
        let cancelled = Mutex(false)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                queue.async {
                    if !cancelled.withLock({ $0 }) { _ = self.problem(sha256, at: url) }
                    continuation.resume()
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
    }

    /// The loudness measured during this download, by blob.
    var measured: [String: Loudness] { state.withLock { $0.measured } }
}
