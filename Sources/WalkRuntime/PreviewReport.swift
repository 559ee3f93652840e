import Foundation
import Playback
import TourModel
import Walk

/// What a walker would have experienced on a recorded walk: the preview's answer to a curator.
///
/// Times are given twice: as ISO-8601 (the trace's own clock) and as seconds from the first fix,
/// which is what people and tests compare. `--json` prints this value as is.
public struct PreviewReport: Sendable, Hashable, Codable {
    public struct TourInfo: Sendable, Hashable, Codable {
        public var id: String
        public var slug: String
        public var language: String
        public var title: String
    }

    public struct Trigger: Sendable, Hashable, Codable {
        public var time: String
        public var offsetSeconds: Double
        public var type: TriggerType
        /// The fix that confirmed the entry (nil for caught-up and manual triggers).
        public var latitude: Double?
        public var longitude: Double?
        public var distanceMeters: Double?
    }

    public struct AudioSpan: Sendable, Hashable, Codable {
        public var startOffsetSeconds: Double
        /// Nil when the trace ended and the walker quit while it still played.
        public var endOffsetSeconds: Double?
        public var durationSeconds: Double?
    }

    public enum PointStatus: String, Sendable, Hashable, Codable {
        /// The narration played to its end.
        case heard
        /// No audio, or audio that failed: title and text were shown instead.
        case announced
        /// Passed over (`--missed skip`).
        case missed
        /// Triggered, but the walk ended before its narration did.
        case interrupted
        /// The walker never got there.
        case notReached

        /// For people: `not reached` rather than `notReached`.
        public var label: String { self == .notReached ? "not reached" : rawValue }
    }

    public struct Point: Sendable, Hashable, Codable {
        public var order: Int
        public var id: String
        public var title: String
        public var status: PointStatus
        public var trigger: Trigger?
        /// Seconds between trigger and the narration starting (rule 3's queue).
        public var queueWaitSeconds: Double?
        public var audio: AudioSpan?
        /// Why the point was announced instead of played.
        public var note: String?
        /// Metres along the route where the story reaches this point (rule 10).
        public var stationMeters: Double?
        /// The narration's measured loudness and the gain it plays with, when measured.
        public var loudness: NarrationLevel?
    }

    /// A narration's loudness (EBU R128) and what playback does with it (docs/loudness.md).
    public struct NarrationLevel: Sendable, Hashable, Codable {
        /// LUFS; nil for a silent file.
        public var integrated: Double?
        /// dBTP; nil for a silent file.
        public var truePeak: Double?
        public var clipped: Bool
        /// Seconds of silence before the narration's first sound and after its last (to a tenth).
        public var leadingSilence: Double?
        public var trailingSilence: Double?
        /// The gain applied at playback toward the target, in dB (0 with `--loudness off`).
        public var gainDB: Double
    }

    /// The route the walk followed (rule 10).
    public struct RouteInfo: Sendable, Hashable, Codable {
        /// `drawn` (the tour's route) or `points` (the polyline through the points).
        public var source: TourRoute.Source
        /// Why the tour's drawn route was not used.
        public var unfitReason: String?
        public var lengthMeters: Double
        /// How far along the route the walker got.
        public var progressMeters: Double?
        /// Where progress stood at each accepted fix, thinned: [offset seconds, metres].
        public var progress: [[Double]]
    }

    public struct Entry: Sendable, Hashable, Codable {
        public enum Kind: String, Sendable, Hashable, Codable {
            case start, triggered, queued, audioStart, audioEnd, announced, missed, ignoredFix, gpsGap,
                completed, abandoned, traceEnd
            /// Route progress (rule 10): joined the route past its start, left it, came back,
            /// re-localised further on.
            case joinedRoute, leftRoute, rejoinedRoute, relocalised
        }
        public var offsetSeconds: Double
        public var time: String
        public var kind: Kind
        public var pointOrder: Int?
        public var text: String
    }

    public struct Summary: Sendable, Hashable, Codable {
        public var pointsHeard: Int
        public var pointsAnnounced: Int
        public var pointsTotal: Int
        public var totalQueueWaitSeconds: Double
        /// The longest stretch without narration between the first fix and the end of the walk.
        public var longestSilenceSeconds: Double
        public var completed: Bool
        /// Seconds from the first fix to completion, or to the end of the trace when not completed.
        public var endOffsetSeconds: Double
        public var fixes: Int
        public var acceptedFixes: Int
        /// By `FixFilter.Reason` raw value.
        public var rejectedFixes: [String: Int]
    }

    public var tour: TourInfo
    public var policy: WalkPolicy
    public var traceStart: String?
    public var points: [Point]
    public var timeline: [Entry]
    /// Timeline entries left out to keep a bad trace's report readable (ignored fixes, gaps).
    public var timelineOmitted: Int
    public var events: [WalkEvent]
    public var summary: Summary
    public var completionMessage: String?
    public var route: RouteInfo?
    /// The level narration is brought to: `-16.0 LUFS`, or `off`.
    public var loudnessTarget: String?

    /// Adds each narration's measured loudness and the gain it plays with toward `target` (a
    /// mono one's as the queue gives it: `AudioQueue.gainDB(_:for:channels:)`).
    public mutating func addLoudness(of tour: PlayableTour, target: LoudnessTarget) {
        loudnessTarget = target.description
        for index in points.indices {
            guard let point = tour.points.first(where: { $0.id == points[index].id }), let measured = point.loudness
            else { continue }
            // Opening the decoder reads its format (no frame count: WalkSimulation has the lengths).
            let channels = point.audio.flatMap { try? AudioDecoders.open($0).format.channels } ?? 2
            points[index].loudness = NarrationLevel(
                integrated: measured.integrated.map(Self.tenths), truePeak: measured.truePeak.map(Self.tenths),
                clipped: measured.isClipped, leadingSilence: measured.leadingSilence,
                trailingSilence: measured.trailingSilence,
                gainDB: Self.tenths(AudioQueue.gainDB(target, for: measured, channels: channels)))
        }
    }

    private static func tenths(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    /// `points heard 5/5, total queue wait 0.0s, longest silence 2m 41s`.
    public var summaryLine: String {
        var line = "points heard \(summary.pointsHeard)/\(summary.pointsTotal)"
        if summary.pointsAnnounced > 0 { line += " (+\(summary.pointsAnnounced) announced without audio)" }
        line += ", total queue wait \(WalkTime.duration(summary.totalQueueWaitSeconds))"
        line += ", longest silence \(WalkTime.duration(summary.longestSilenceSeconds))"
        line +=
            summary.completed
            ? ", completed at \(WalkTime.offset(summary.endOffsetSeconds))"
            : ", not completed"
        return line
    }

    /// The report for people: header, timeline, per-point table, summary line.
    public func rendered() -> String {
        renderedTimeline() + "\n" + renderedPoints() + "\n\(summaryLine)\n"
    }

    public func renderedTimeline() -> String {
        var out = "\(tour.title) [\(tour.language)]: \(summary.fixes) fixes (\(summary.acceptedFixes) usable), "
        out += "policy \(policy.missed.rawValue), error bound \(String(format: "%g", policy.maxHorizontalError)) m, "
        out += "\(policy.confirmationFixes) fixes to confirm\n\n"
        for entry in timeline {
            out +=
                "  \(TerminalWidth.padded(WalkTime.offset(entry.offsetSeconds), to: 9)) \(entry.text)\n"
        }
        if timelineOmitted > 0 { out += "  (\(timelineOmitted) more ignored fixes and gaps not listed)\n" }
        return out
    }

    /// One line per point: when it triggered, how far from it, how long it waited, when it played.
    public func renderedPoints() -> String {
        var out = "  #  point                         trigger   dist    wait   audio\n"
        for p in points {
            // By terminal columns, not characters: an emoji or a Japanese title is two a character.
            let title = TerminalWidth.truncated(p.title, to: 28)
            var line =
                "  " + TerminalWidth.padded(String(p.order), to: 3) + TerminalWidth.padded(title, to: 29)
            if let t = p.trigger {
                // Never cut: a walk of a hundred hours reads +101:10:20, not +101:10:2.
                line += " " + TerminalWidth.padded(WalkTime.offset(t.offsetSeconds) + " ", to: 9)
                line += (t.distanceMeters.map { String(format: "%4.0f m", $0) } ?? "     -") + " "
                line += String(format: "%6.1fs", p.queueWaitSeconds ?? 0)
                if let a = p.audio {
                    line +=
                        "  \(WalkTime.offset(a.startOffsetSeconds))–\(a.endOffsetSeconds.map(WalkTime.offset) ?? "…")"
                }
            }
            line += "  \(p.status.label)"
            if let note = p.note { line += " (\(note))" }
            out += line + "\n"
        }
        return out
    }
}
