import Foundation
import Positioning
import Testing
import TourModel

@testable import Curation
@testable import Walk

/// The map's thinned trace: bounded, even, and true to where the walk went and where it went quiet.
struct DrawnTraceTests {
    /// A fix a second going north, with the receiver silent (no fixes) during `silent`.
    static func walk(_ seconds: Int, silent: Range<Int> = 0..<0) -> [Fix] {
        (0..<seconds).filter { !silent.contains($0) }.map { fix(Double($0), 45.0 + Double($0) * 1e-5) }
    }

    @Test func aShortWalkIsDrawnWhole() {
        let fixes = Self.walk(100)
        let trace = DrawnTrace(fixes, capacity: 1000)
        #expect(trace.points.map(\.fix) == fixes)
        #expect(trace.points.allSatisfy { $0.gapBefore <= 1 })
    }

    @Test func aLongWalkIsThinnedEvenlyKeepingTheEnds() {
        let fixes = Self.walk(100_000)
        let trace = DrawnTrace(fixes, capacity: 1000)
        let points = trace.points
        #expect(points.count > 500 && points.count <= 1001)
        #expect(points.first?.fix == fixes.first && points.last?.fix == fixes.last)
        let steps = Set(zip(points, points.dropFirst()).dropLast().map { $1.fix.time.timeIntervalSince($0.fix.time) })
        #expect(steps.count == 1)  // one stride throughout
        #expect(trace.count == 100_000)
        #expect(trace.south == 45.0 && trace.north == 45.0 + 99_999 * 1e-5)
    }

    /// The map drew 5 s of fixes stamped an hour ahead as "no fix for 3601 s" where the preview,
    /// on its own clock, saw fixes every second; a real 40 s gap is drawn as one.
    @Test func theMapMeasuresGapsOnThePreviewsClock() {
        var fixes = Self.walk(300, silent: 200..<240)
        for k in 100..<105 { fixes[k].time.addTimeInterval(3600) }
        let tour = PlayableTour(
            id: "t", slug: "t", language: "en", title: "T",
            points: [
                PlayablePoint(
                    id: "a", order: 1, coordinate: Coordinate(latitude: 45, longitude: 7), triggerRadiusMeters: 20,
                    title: "A")
            ])
        var map = TourMap(tour: tour)
        map.draw(fixes: fixes, filter: FixFilter.Configuration())
        let gaps = map.trace.points.filter { $0.gapBefore > 5 }.map(\.gapBefore)
        #expect(gaps == [41], "\(gaps)")
        #expect(map.trace.count + map.ignoredTotal == fixes.count)
    }

    @Test func thinningKeepsARealGapAndInventsNone() {
        let trace = DrawnTrace(Self.walk(100_000, silent: 61_000..<61_008), capacity: 1000)
        let gaps = trace.points.filter { $0.gapBefore > 5 }
        #expect(gaps.count == 1)
        #expect(gaps.first?.gapBefore == 9)
        #expect(gaps.first.map { $0.fix.time.timeIntervalSince(t0) >= 61_008 } == true)
    }
}
