import Foundation
import TourModel

/// Which of a long route's segments lie near a place: the segments in a grid of cells about 100 m
/// across, so that `TourRoute.firstPass` looks at the few segments near a fix, not at every one
/// after a place along the route. A walker off the route (a lunch break, a detour) had every fix
/// scan the whole rest of it for a shortcut: 300 µs a fix on a drawn route of 50,000 vertices,
/// growing with the route's detail for as long as they stayed off (an adversarial pass,
/// 2026-11-27).
///
/// It only ever narrows a search down to segments that may be within reach, never decides:
/// `TourRoute` measures each candidate exactly as before, so the answers are the same. Segments it
/// cannot place in a small square of cells (longer than `longSegment`, or across the antimeridian)
/// are candidates for every place; near the poles, or for a query across the antimeridian, there is
/// no grid, and the caller scans (`candidates` is nil).
final class SegmentGrid: Sendable {
    /// Segments longer than this (metres) are candidates everywhere: a few long legs (a points
    /// route's straight lines) would otherwise fill many cells each.
    static let longSegment = 2000.0
    /// A route with fewer segments is scanned: the grid would cost more than it saves.
    static let fewestSegments = 256
    /// A query over more cells than this is left to a scan.
    static let mostCells = 400

    private struct Cell: Hashable {
        var row: Int
        var column: Int
    }

    /// Degrees of latitude and longitude a cell spans.
    private let cellLatitude: Double
    private let cellLongitude: Double
    private let cells: [Cell: [Int32]]
    /// Segments every query gets.
    private let everywhere: [Int32]

    /// Nil when the route is short, or reaches beyond 80° of latitude (cells narrow too fast there).
    init?(vertices: [Coordinate], lengths: [Double]) {
        guard vertices.count - 1 > Self.fewestSegments, vertices.allSatisfy({ abs($0.latitude) <= 80 }) else {
            return nil
        }
        let meanLatitude = vertices.reduce(0) { $0 + $1.latitude } / Double(vertices.count)
        let scale = Geodesy.metresPerDegree(atLatitude: meanLatitude)
        cellLatitude = 100 / scale.north
        cellLongitude = 100 / scale.east
        var cells: [Cell: [Int32]] = [:]
        var everywhere: [Int32] = []
        for i in 0..<(vertices.count - 1) {
            let a = vertices[i], b = vertices[i + 1]
            guard lengths[i] <= Self.longSegment, abs(b.longitude - a.longitude) <= 180 else {
                everywhere.append(Int32(i))
                continue
            }
            let rows =
                Self.index(
                    min(a.latitude, b.latitude), cellLatitude)...Self.index(
                    max(a.latitude, b.latitude), cellLatitude)
            let columns =
                Self.index(
                    min(a.longitude, b.longitude), cellLongitude)...Self.index(
                    max(a.longitude, b.longitude), cellLongitude)
            for row in rows {
                for column in columns { cells[Cell(row: row, column: column), default: []].append(Int32(i)) }
            }
        }
        // Mostly long legs (a points route's straight lines): a scan, which stops at the first pass,
        // is as quick.
        guard everywhere.count * 4 <= vertices.count - 1 else { return nil }
        self.cells = cells
        self.everywhere = everywhere
    }

    private static func index(_ degrees: Double, _ cell: Double) -> Int { Int((degrees / cell).rounded(.down)) }

    /// The segments, in ascending order, that may come within `reach` metres of `c` (every one that
    /// does is among them); nil when the grid cannot say (the caller scans).
    func candidates(near c: Coordinate, within reach: Double) -> [Int]? {
        guard reach.isFinite, reach >= 0, abs(c.latitude) <= 80 else { return nil }
        // Degrees for `reach`, with a margin: a segment's own frame (at its start, up to
        // `longSegment` away) measures longitude a little differently from `c`'s latitude.
        let scale = Geodesy.metresPerDegree(atLatitude: c.latitude)
        let margin = 1.05 * reach + 1
        let dLatitude = margin / scale.north, dLongitude = margin / scale.east
        let west = c.longitude - dLongitude, east = c.longitude + dLongitude
        guard west >= -180, east <= 180 else { return nil }
        let rows = Self.index(c.latitude - dLatitude, cellLatitude)...Self.index(c.latitude + dLatitude, cellLatitude)
        let columns = Self.index(west, cellLongitude)...Self.index(east, cellLongitude)
        // A reach of kilometres: as many cells as segments, near enough; the caller scans.
        guard rows.count * columns.count <= Self.mostCells else { return nil }
        var found = Set(everywhere)
        for row in rows {
            for column in columns {
                if let segments = cells[Cell(row: row, column: column)] { found.formUnion(segments) }
            }
        }
        return found.map(Int.init).sorted()
    }
}
