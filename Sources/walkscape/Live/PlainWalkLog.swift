import Foundation
import GPSD
import Positioning
import TourModel
import Walk
import WalkRuntime
import WalkscapeKit

/// Without a terminal (a pipe, a log, a service), the walk prints one line per thing that happened.
/// Titles and notices come from the tour: each line goes out through `Console`, which sanitises it.
final class PlainWalkLog: @unchecked Sendable {
    private var lastGPS: String?
    private var lastPlaying: String?
    private var lastHeard = 0
    private var lastNotice: String?
    private var loggedTriggers = 0
    private var lastSubtitle: String?
    private let lock = NSLock()
    private let write: @Sendable (String) -> Void

    /// By default each line goes to stdout through `Console`, which never traps on a failed write
    /// (a full disk under `walk > log`, a terminal gone): the line is lost, never the walk.
    init(write: @escaping @Sendable (String) -> Void = { line in Console.out(line) }) {
        self.write = { line in write(TerminalText.line(line)) }
    }

    func update(_ s: LiveWalkStatus) {
        lock.lock(); defer { lock.unlock() }
        let gps: String
        switch s.gps {
        case nil: gps = "connecting to gpsd"
        case .noGPSD: gps = "no gpsd (retrying)"
        case .waitingForFix: gps = "waiting for a fix"
        case .connected:
            gps =
                s.lastFix.map { $0.mode == .threeD ? "3D fix" : $0.mode == .twoD ? "2D fix" : "no fix" } ?? "connected"
        }
        if gps != lastGPS { write("gps: \(gps)"); lastGPS = gps }
        // Each trigger once, all of them: one update may bring several (one fix reaching two points).
        for t in s.triggers.dropFirst(loggedTriggers) {
            let title = s.tour.points.first { $0.id == t.pointID }?.title ?? t.pointID
            var line = "triggered: \(t.order). \(title) ("
            switch t.type {
            case .gps:
                line += "gps"
                if let d = t.distance { line += ", \(Int(d.rounded())) m from the point" }
            // In the preview's words: the walker was never there (analytics say "gps").
            case .caughtUp: line += "missed on the way, played before the next one"
            case .manual: line += "manual"
            }
            write(line + ")")
        }
        loggedTriggers = max(loggedTriggers, s.triggers.count)
        let playing = s.nowPlaying.map { "\($0.point.order). \($0.point.title)" }
        if playing != lastPlaying {
            if let playing { write("playing: \(playing)") }
            lastPlaying = playing
            lastSubtitle = nil
        }
        // Each cue once, as it is heard: a log read later (or a walker without a screen) still
        // has the words.
        if let subtitle = s.subtitle, subtitle != lastSubtitle {
            write("subtitle: " + subtitle.split(whereSeparator: \.isNewline).joined(separator: " / "))
        }
        if s.subtitle != nil { lastSubtitle = s.subtitle }
        if s.heardCount != lastHeard {
            write("heard: \(s.heardCount)/\(s.tour.points.count)"); lastHeard = s.heardCount
        }
        if let notice = s.notice, notice != lastNotice { write("note: \(notice)"); lastNotice = notice }
    }
}
