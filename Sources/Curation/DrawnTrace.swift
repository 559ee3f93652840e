import Foundation
import Positioning
import TourModel
import Walk
import WalkRuntime

/// A recorded walk as the map draws it: at most `capacity` fixes, thinned evenly while the trace
/// streams past, so a day-long log costs the same memory as a short one.
///
/// Every `stride`-th fix is kept; when the kept ones pass the capacity, every other one is
/// dropped and the stride doubles, so between half and all of the capacity is drawn, evenly
/// spread. The first and the last fix are always drawn. Thinning must not invent or lose gaps: a
/// kept fix carries the longest silence among the fixes it stands for (`gapBefore`), so two fixes
/// a thinned stride apart are not a gap, and a real outage stays one. The frame of the map comes
/// from every fix, not only the drawn ones.
public struct DrawnTrace: Sendable {
    public struct Point: Sendable, Hashable {
        public var fix: Fix
        /// The longest time between consecutive fixes of the trace since the previous drawn point.
        public var gapBefore: TimeInterval
    }

    public let capacity: Int
    /// Fixes added.
    public private(set) var count = 0
    /// The southernmost, westernmost... of every fix added.
    public private(set) var south = Double.infinity, north = -Double.infinity
    public private(set) var west = Double.infinity, east = -Double.infinity
    private var kept: [Point] = []
    private var stride = 1
    private var last: Fix?
    private var lastTime: Date?
    /// The longest gap since the last kept fix.
    private var gapSinceKept: TimeInterval = 0

    public init(capacity: Int) {
        self.capacity = max(2, capacity)
    }

    public init(_ fixes: some Sequence<Fix>, capacity: Int) {
        self.init(capacity: capacity)
        for fix in fixes { add(fix) }
    }

    public var isEmpty: Bool { count == 0 }

    /// `time`: when the fix was on the preview's clock (a receiver's clock that ran an hour ahead
    /// for five seconds is not an hour without a fix); its own time by default.
    public mutating func add(_ fix: Fix, at time: Date? = nil) {
        let c = fix.coordinate
        let time = time ?? fix.time
        south = min(south, c.latitude); north = max(north, c.latitude)
        west = min(west, c.longitude); east = max(east, c.longitude)
        if let lastTime { gapSinceKept = max(gapSinceKept, time.timeIntervalSince(lastTime)) }
        last = fix
        lastTime = time
        if count % stride == 0 {
            kept.append(Point(fix: fix, gapBefore: gapSinceKept))
            gapSinceKept = 0
            if kept.count > capacity { halve() }
        }
        count += 1
    }

    /// The points to draw, in order, the last fix included.
    public var points: [Point] {
        guard let last, (count - 1) % stride != 0 else { return kept }
        return kept + [Point(fix: last, gapBefore: gapSinceKept)]
    }

    private mutating func halve() {
        var thinned: [Point] = []
        thinned.reserveCapacity(kept.count / 2 + 1)
        for k in Swift.stride(from: 0, to: kept.count, by: 2) {
            var point = kept[k]
            if k > 0 { point.gapBefore = max(point.gapBefore, kept[k - 1].gapBefore) }
            thinned.append(point)
        }
        // A dropped last point's silence belongs to whatever is kept next.
        if kept.count % 2 == 0 { gapSinceKept = max(gapSinceKept, kept[kept.count - 1].gapBefore) }
        kept = thinned
        stride *= 2
    }
}
