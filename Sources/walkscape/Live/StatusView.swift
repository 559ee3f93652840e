import Foundation
import GPSD
import Positioning
import TourModel
import Walk
import WalkRuntime
import WalkscapeKit

/// Draws the live walk's status area: one glance tells GPS quality, where the next point is, what
/// plays, what waits. Pure: status in, lines out, so it is tested without a terminal.
/// Text from the tour (titles, subtitles, notices) is sanitised piece by piece (`TerminalText`)
/// before the view adds escape sequences of its own.
struct StatusView {
    var width: Int
    var color: Bool
    var prompt: String?
    var showHelp = false

    func render(_ s: LiveWalkStatus) -> [String] {
        var lines: [String] = []
        let heard = "\(s.heardCount)/\(s.tour.points.count) heard"
        let paused = s.progress.isPaused ? "  " + paint("[paused]", "33") : ""
        lines.append(bold(text(s.tour.title)) + " — " + heard + paused)
        lines.append(label("GPS ") + gpsLine(s))
        if let next = s.nextPoint {
            var line = "\(next.order). \(text(next.title))"
            if let fix = s.lastFix {
                let d = fix.coordinate.distance(to: next.coordinate)
                let b = fix.coordinate.bearing(to: next.coordinate)
                line += " — \(Self.distance(d)) \(Self.compass(b))"
                if d <= next.triggerRadiusMeters {
                    line +=
                        s.nextPointReached ? " (inside)" : " (here, but later in the tour: it plays when you come back)"
                }
            }
            lines.append(label("Next") + line)
        } else {
            lines.append(label("Next") + "no more points")
        }
        if let playing = s.nowPlaying {
            var line = "\(playing.point.order). \(text(playing.point.title))  \(Self.clock(playing.elapsed))"
            if let total = playing.duration { line += " / \(Self.clock(total))" }
            lines.append(label("Now ") + line)
            if let sub = s.subtitle {
                for part in sub.split(separator: "\n") { lines.append("     " + paint(text(String(part)), "36")) }
            }
        } else {
            lines.append(label("Now ") + "silence")
        }
        let queued = s.queuedPoints
        if !queued.isEmpty {
            lines.append(label("Queue") + queued.map { "\($0.order). \(text($0.title))" }.joined(separator: ", "))
        }
        if let notice = s.notice { lines.append(label("Note") + text(notice)) }
        if let prompt { lines.append(paint(prompt, "33")) }
        if showHelp {
            lines += [
                "", "space  pause / resume", "n      skip this narration (counts as heard)",
                "p      play the previous point", "r      replay this point", "q      quit (asks first)",
                "?      this help",
            ]
        }
        lines.append("")
        lines.append(dim("space pause · n skip · p previous · r replay · q quit · ? help"))
        return lines.map(fit)
    }

    func gpsLine(_ s: LiveWalkStatus) -> String {
        switch s.gps {
        case nil:
            return "connecting to gpsd…"
        case .noGPSD:
            return paint("no gpsd", "31") + " — waiting for it to return (the walk goes on when it does)"
        case .waitingForFix where s.lastFix == nil:
            return paint("no fix yet", "33") + " — waiting for the receiver"
        case .waitingForFix, .connected:
            guard let fix = s.lastFix else { return paint("no fix yet", "33") }
            var parts: [String] = []
            switch fix.mode {
            case .noFix: parts.append(paint("no fix", "31"))
            case .twoD: parts.append(paint("2D fix", "33"))
            case .threeD: parts.append(paint("3D fix", "32"))
            }
            if let e = fix.horizontalError { parts.append("±\(Int(saturating: e.rounded())) m") }
            if let sats = fix.satellites { parts.append("\(sats) sats") }
            if s.rejectedFixes > 0, let why = s.lastRejection {
                parts.append("\(s.rejectedFixes) fixes ignored (last: \(why.rawValue))")
            }
            if let off = s.offRoute { parts.append(paint("off the route (\(Self.distance(off)))", "33")) }
            return parts.joined(separator: " · ")
        }
    }

    // MARK: formatting

    static func distance(_ metres: Double) -> String {
        metres < 1000 ? "\(Int(metres.rounded())) m" : String(format: "%.1f km", metres / 1000)
    }

    static func compass(_ bearing: Double) -> String {
        let names = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        return names[Int(((bearing.truncatingRemainder(dividingBy: 360) + 360 + 22.5) / 45).rounded(.down)) % 8]
    }

    static func clock(_ seconds: Double) -> String {
        let s = max(0, Int(seconds.rounded(.down)))
        return String(format: "%d:%02d", s / 60, s % 60)
    }

    /// Text from the tour, safe to draw.
    private func text(_ raw: String) -> String { TerminalText.line(raw) }

    private func label(_ text: String) -> String { bold(text.padding(toLength: 5, withPad: " ", startingAt: 0)) }
    private func bold(_ text: String) -> String { color ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    private func dim(_ text: String) -> String { color ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    private func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    /// Cuts a line to the terminal width, counting only visible characters.
    private func fit(_ line: String) -> String {
        var visible = 0
        var out = ""
        var inEscape = false
        for ch in line {
            if ch == "\u{1B}" { inEscape = true }
            if inEscape {
                out.append(ch)
                if ch.isLetter { inEscape = false }
                continue
            }
            if visible >= width { continue }
            out.append(ch)
            visible += 1
        }
        return out
    }
}
