import Foundation
import Playback
import TourModel
import Walk

/// Plays a computed preview back for a person: the timeline printed as it happens, the narration
/// through the playback module, subtitles on screen.
///
/// The report is computed first (it is exact and does not depend on how it is shown); this only
/// performs it. Walking is fast-forwarded by `speed`, listening never is: virtual time runs at
/// `speed` times the wall clock between narrations and at 1x while one plays, so every word is
/// heard and the next trigger still comes at the right moment of the walk.
public struct PreviewPerformance: Sendable {
    public let report: PreviewReport
    public let tour: PlayableTour
    public let speed: Double
    /// The level narrations are brought to (each point's measured loudness, docs/loudness.md).
    public let loudness: LoudnessTarget

    public init(report: PreviewReport, tour: PlayableTour, speed: Double, loudness: LoudnessTarget = .off) {
        self.report = report
        self.tour = tour
        self.speed = max(speed, 0.001)
        self.loudness = loudness
    }

    enum Action {
        case say(String)
        case startAudio(PlayablePoint)
        case endAudio(PlayablePoint)
        case subtitle(String)
    }

    struct Step {
        var at: Double
        var action: Action
    }

    /// The steps in virtual time, subtitle cues merged in.
    func steps() -> [Step] {
        var byOrder: [Int: PlayablePoint] = [:]
        for p in tour.points { byOrder[p.order] = p }
        var steps: [Step] = []
        for entry in report.timeline {
            let line =
                "\(WalkTime.offset(entry.offsetSeconds).padding(toLength: 9, withPad: " ", startingAt: 0)) \(entry.text)"
            switch entry.kind {
            case .audioStart:
                guard let order = entry.pointOrder, let point = byOrder[order] else { continue }
                steps.append(Step(at: entry.offsetSeconds, action: .say(line)))
                // Audio that failed in the simulation is announced instead (next entry): nothing plays.
                if report.points.first(where: { $0.order == order })?.status == .announced { continue }
                steps.append(Step(at: entry.offsetSeconds, action: .startAudio(point)))
                if let url = point.subtitles, let track = try? SubtitleTrack(contentsOf: url) {
                    let end = report.points.first { $0.order == order }?.audio?.endOffsetSeconds ?? .infinity
                    for cue in track.cues where entry.offsetSeconds + cue.start < end {
                        steps.append(
                            Step(
                                at: entry.offsetSeconds + cue.start,
                                action: .subtitle(
                                    "             “\(cue.text.replacingOccurrences(of: "\n", with: " "))”")))
                    }
                }
            case .audioEnd:
                guard let order = entry.pointOrder, let point = byOrder[order] else { continue }
                steps.append(Step(at: entry.offsetSeconds, action: .endAudio(point)))
                steps.append(Step(at: entry.offsetSeconds, action: .say(line)))
            case .announced:
                steps.append(Step(at: entry.offsetSeconds, action: .say(line)))
                if let order = entry.pointOrder, let text = byOrder[order]?.text, !text.isEmpty {
                    steps.append(Step(at: entry.offsetSeconds, action: .subtitle("             \(text)")))
                }
            default:
                steps.append(Step(at: entry.offsetSeconds, action: .say(line)))
            }
        }
        // Stable sort keeps same-time steps in the order the walk produced them.
        return steps.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// How long past a narration's computed end to wait for the player to report it, before
    /// saying so and going on (a device that stalls must not hang the preview).
    public var grace: Duration = .seconds(5)

    /// Performs the preview. With `player`, narrations are really played and the end of each one
    /// waits for the player to report it; without, they are timed by the clock alone.
    public func perform(player: AudioQueue?, write: @Sendable (String) -> Void) async throws {
        let clock = ContinuousClock()
        let ends = AudioEnds()
        let listener = player.map { player in
            Task {
                for await event in player.events {
                    if let id = Self.endedID(event) { await ends.record(id) }
                }
            }
        }
        defer { listener?.cancel() }
        var virtual = 0.0
        var narrating = false
        for step in steps() {
            let gap = step.at - virtual
            if gap > 0 {
                let rate = narrating ? 1.0 : speed
                try await clock.sleep(for: .milliseconds(Int((gap / rate * 1000).rounded())))
            }
            virtual = max(virtual, step.at)
            switch step.action {
            case .say(let text), .subtitle(let text):
                write(text)
            case .startAudio(let point):
                narrating = true
                if let player, let url = point.audio {
                    await player.enqueue(url, id: point.id, loudness: point.loudness, target: loudness)
                }
            case .endAudio(let point):
                narrating = false
                // The clock and the sound card agree only roughly; the sound card has the last word.
                if player != nil, point.audio != nil, !(await ends.wait(for: point.id, atMost: grace)) {
                    write("          (the sound device did not report the end of \(point.title); going on)")
                }
            }
        }
    }

    private static func endedID(_ event: AudioQueue.Event) -> String? {
        switch event {
        case .finished(let id), .stopped(let id, _), .failed(let id, _): id
        default: nil
        }
    }
}
