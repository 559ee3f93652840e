import Foundation
import Positioning
import TourModel

@testable import Walk

/// A straight tour due north from (45.0, 9.0): a point every 0.002° of latitude (222.4 m),
/// radius 30 m, each with a (never opened) narration file unless `withoutAudio` names it.
func northTour(
    points count: Int = 3, radius: Double = 30, withoutAudio: Set<Int> = [],
    completionMessage: String? = "Thanks for walking"
) -> PlayableTour {
    let points = (1...count).map { order in
        PlayablePoint(
            id: "p\(order)", order: order,
            coordinate: Coordinate(latitude: 45.0 + Double(order - 1) * 0.002, longitude: 9.0),
            triggerRadiusMeters: radius, title: "Point \(order)", text: "About point \(order).",
            audio: withoutAudio.contains(order) ? nil : URL(fileURLWithPath: "/narration/\(order).mp3"))
    }
    return PlayableTour(
        id: "tour-1", slug: "north", language: "en", title: "North", completionMessage: completionMessage,
        points: points)
}

let t0 = Date(timeIntervalSince1970: 1_776_500_000)

func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

/// A good 3D fix at `lat`, 9.0 (unless `lng`), `seconds` after t0, error 5 m.
func fix(_ seconds: Double, _ lat: Double, lng: Double = 9.0, error: Double? = 5, mode: Fix.Mode = .threeD) -> Fix {
    Fix(time: at(seconds), coordinate: Coordinate(latitude: lat, longitude: lng), mode: mode, horizontalError: error)
}

extension WalkCore {
    /// Feeds a fix at its own time.
    mutating func feed(_ f: Fix) -> [WalkEffect] { handle(.fix(f), at: f.time) }
}

extension Array where Element == WalkEffect {
    var triggered: [PointTrigger] { compactMap { if case .triggered(let t) = $0 { t } else { nil } } }
    var played: [String] { compactMap { if case .play(let p) = $0 { p.id } else { nil } } }
    var announced: [String] { compactMap { if case .announce(let p, _) = $0 { p.id } else { nil } } }
    var queued: [String] { compactMap { if case .queued(let id, _) = $0 { id } else { nil } } }
    var missed: [String] { compactMap { if case .missed(let id) = $0 { id } else { nil } } }
    var events: [WalkEvent] { compactMap { if case .track(let e) = $0 { e } else { nil } } }
    var rejections: [FixFilter.Reason] { compactMap { if case .fixRejected(_, let r) = $0 { r } else { nil } } }
    var saved: [WalkProgress] { compactMap { if case .saveProgress(let p) = $0 { p } else { nil } } }
    var stops: Int { count { $0 == .stop } }
    var isCompleted: Bool { contains { if case .completed = $0 { true } else { false } } }
}

extension WalkProgress {
    /// Equal but for the dates' last bits: the file keeps seconds since 1970 as decimal text, so
    /// a date comes back within a microsecond, not to the bit.
    func sameWalk(as other: WalkProgress) -> Bool {
        func close(_ a: Date?, _ b: Date?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case let (a?, b?): abs(a.timeIntervalSince(b)) < 1e-6
            default: false
            }
        }
        var a = self, b = other
        guard close(a.startedAt, b.startedAt), close(a.endedAt, b.endedAt), a.points.count == b.points.count,
            zip(a.points, b.points).allSatisfy({ close($0.triggeredAt, $1.triggeredAt) })
        else { return false }
        a.startedAt = nil; b.startedAt = nil; a.endedAt = nil; b.endedAt = nil
        for i in a.points.indices { a.points[i].triggeredAt = nil; b.points[i].triggeredAt = nil }
        return a == b
    }
}
