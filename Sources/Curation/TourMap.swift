import Foundation
import Positioning
import TourModel
import Walk
import WalkRuntime

/// `walkscape map`: the tour as an SVG a person would rather look at than read.
///
/// Route underneath, radii as soft discs, numbered points with their titles, the recorded walk
/// coloured by how accurate each fix claimed to be (so a curator sees where GPS is poor), ignored
/// fixes as crosses, where each point triggered, a scale bar and a legend. Plain SVG 1.1 with no
/// scripts or external resources, so any browser opens it.
public struct TourMap: Sendable {
    public var tour: PlayableTour
    /// The walk to draw, thinned to what a picture can show.
    public var trace: DrawnTrace
    /// Fixes the filter ignored, drawn as crosses: the first `maxIgnoredMarks` of them.
    public var ignored: [Fix]
    /// How many fixes the filter ignored in all (the legend says when not all are drawn).
    public var ignoredTotal: Int
    /// Where and when points triggered, from a preview of the same walk.
    public var report: PreviewReport?
    public var width: Double = 1000

    /// More fixes than this are thinned evenly: a screen has no room for them, a browser no patience.
    public static let maxDrawnFixes = 20_000
    /// Crosses beyond this would hide the map (a receiver wrong all afternoon).
    public static let maxIgnoredMarks = 1000

    public init(tour: PlayableTour, fixes: [Fix] = [], ignored: [Fix] = [], report: PreviewReport? = nil) {
        self.tour = tour
        self.trace = DrawnTrace(fixes, capacity: Self.maxDrawnFixes)
        self.ignored = Array(ignored.prefix(Self.maxIgnoredMarks))
        self.ignoredTotal = ignored.count
        self.report = report
    }

    /// Adds a recorded walk, streamed once through the fix filter: accepted fixes become the
    /// drawn trace (thinned as they come), ignored ones with a position the crosses. Memory stays
    /// flat in the length of the trace.
    /// The trace's gaps are measured on the preview's clock (`TraceClock`), as the preview's are.
    public mutating func draw(fixes: some Sequence<Fix>, filter configuration: FixFilter.Configuration) {
        var filter = FixFilter(configuration: configuration)
        var clock = TraceClock(stepConfirmations: configuration.clockStepConfirmations)
        // The clock's time of the fixes the filter holds (its cold start), for when it releases them.
        var heldAt: [(raw: Date, time: Date)] = []
        func clockTime(of fix: Fix) -> Date { heldAt.last { $0.raw == fix.time }?.time ?? fix.time }
        func take(_ fix: Fix, at time: Date) {
            let verdict = filter.evaluate(fix)
            for dropped in filter.dropped {
                ignore(dropped)
                heldAt.removeAll { $0.raw == dropped.time }
            }
            if verdict == .accepted {
                for earlier in filter.released { trace.add(earlier, at: clockTime(of: earlier)) }
                heldAt = []
                trace.add(fix, at: time)
            } else if verdict == .held {
                heldAt.append((fix.time, time))
            } else if fix.mode >= .twoD {
                ignore(fix)
            }
        }
        for fix in fixes {
            for (fix, time) in clock.push(fix) { take(fix, at: time) }
        }
        for (fix, time) in clock.finish() { take(fix, at: time) }
        for rest in filter.finish() { trace.add(rest, at: clockTime(of: rest)) }
    }

    private mutating func ignore(_ fix: Fix) {
        ignoredTotal += 1
        if ignored.count < Self.maxIgnoredMarks { ignored.append(fix) }
    }

    /// Accuracy classes for the trace: upper bound of the error estimate (metres), colour, label.
    static let accuracyClasses: [(limit: Double, colour: String, label: String)] = [
        (5, "#1b9e77", "≤ 5 m"),
        (15, "#66a61e", "≤ 15 m"),
        (30, "#e6ab02", "≤ 30 m"),
        (.infinity, "#d95f02", "> 30 m"),
    ]
    static let unknownAccuracy = "#7570b3"

    /// A rise in progress larger than this between two samples (metres) is a re-localisation,
    /// drawn as a new stretch rather than a line through streets the walker never took.
    static let progressJump = 150.0

    static func colour(for error: Double?) -> String {
        guard let error else { return unknownAccuracy }
        return accuracyClasses.first { error <= $0.limit }?.colour ?? unknownAccuracy
    }

    public func svg() -> String {
        // Frame: everything the walker could see, with room for labels.
        var lats: [Double] = [], lngs: [Double] = []
        // Longitudes are taken the short way round from the tour's first point, so a tour across
        // the antimeridian (179.99 and -179.99) is drawn as the few metres it is, not the globe.
        let reference = tour.points.first?.coordinate.longitude ?? tour.route.first?.longitude ?? 0
        func east(_ longitude: Double) -> Double {
            reference + Coordinate.wrappedLongitude(longitude - reference)
        }
        func include(_ c: Coordinate, pad: Double = 0) {
            let dLat = pad / 111_320, dLng = pad / (111_320 * max(0.01, cos(c.latitude * .pi / 180)))
            lats += [c.latitude - dLat, c.latitude + dLat]
            lngs += [east(c.longitude) - dLng, east(c.longitude) + dLng]
        }
        for p in tour.points { include(p.coordinate, pad: p.triggerRadiusMeters) }
        // A stray route vertex (`lint` names it) would shrink the whole tour to a dot: the route
        // runs out of the frame towards it instead.
        let strays = Set(
            RouteStrays.find(route: tour.route, points: tour.points.map { ($0.coordinate, $0.triggerRadiusMeters) })
                .map(\.index))
        for (index, c) in tour.route.enumerated() where !strays.contains(index) { include(c) }
        let drawn = trace.points
        if !trace.isEmpty {
            if trace.east - trace.west < 180 {
                include(Coordinate(latitude: trace.south, longitude: trace.west))
                include(Coordinate(latitude: trace.north, longitude: trace.east))
            } else {
                // The box spans the antimeridian the long way: frame the drawn fixes themselves.
                for point in drawn { include(point.fix.coordinate) }
            }
        }
        let minLat = lats.min() ?? 0, maxLat = lats.max() ?? 0, minLng = lngs.min() ?? 0, maxLng = lngs.max() ?? 0
        let midLat = (minLat + maxLat) / 2
        let metresPerDegLat = 111_320.0, metresPerDegLng = 111_320.0 * cos(midLat * .pi / 180)
        let spanX = max(50, (maxLng - minLng) * metresPerDegLng), spanY = max(50, (maxLat - minLat) * metresPerDegLat)
        let margin = 60.0, header = 70.0, footer = 70.0
        let scale = (width - 2 * margin) / spanX  // px per metre
        let height = (spanY * scale + 2 * margin + header + footer).rounded()
        func xy(_ c: Coordinate) -> (Double, Double) {
            (
                margin + (east(c.longitude) - minLng) * metresPerDegLng * scale,
                header + margin + (maxLat - c.latitude) * metresPerDegLat * scale
            )
        }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }

        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif">
            <title>\(Self.escape(tour.title))</title>
            <rect width="100%" height="100%" fill="#f6f4ef"/>
            <text x="\(f(margin))" y="34" font-size="22" font-weight="bold" fill="#2b2d42">\(Self.escape(tour.title))</text>

            """
        if let report {
            let size = min(14, Int((width - 2 * margin) / (Self.textWidth(report.summaryLine, size: 1) + 1)))
            out +=
                "<text x=\"\(f(margin))\" y=\"58\" font-size=\"\(max(8, size))\" fill=\"#555\">"
                + Self.escape(report.summaryLine) + "</text>\n"
        }

        // Route.
        if tour.route.count > 1 {
            let pts = tour.route.map {
                let (x, y) = xy($0); return "\(f(x)),\(f(y))"
            }.joined(separator: " ")
            out +=
                "<polyline id=\"route\" points=\"\(pts)\" fill=\"none\" stroke=\"#8d99ae\" stroke-width=\"9\" "
                + "stroke-linecap=\"round\" stroke-linejoin=\"round\" stroke-opacity=\"0.55\"/>\n"
            let (sx, sy) = xy(tour.route[0])
            out +=
                "<g id=\"start\"><circle cx=\"\(f(sx))\" cy=\"\(f(sy))\" r=\"7\" fill=\"#2a9d8f\" stroke=\"#fff\" stroke-width=\"2\"/>\n"
            out += Self.label("start", x: sx + 10, y: sy - 8, size: 13, colour: "#1d6f65") + "</g>\n"
        }

        // Route progress (rule 10): the stretches of the route the walker's progress followed,
        // each begun where progress was placed or re-localised (a dot), from the preview.
        if let samples = report?.route?.progress, samples.count > 1 {
            let route = TourRoute(tour: tour)
            var stretches: [(Double, Double)] = []
            for sample in samples where sample.count == 2 {
                let along = sample[1]
                if let last = stretches.last, along - last.1 <= Self.progressJump {
                    stretches[stretches.count - 1].1 = max(last.1, along)
                } else {
                    stretches.append((along, along))
                }
            }
            out +=
                "<g id=\"route-progress\" fill=\"none\" stroke=\"#2a9d8f\" stroke-width=\"4\" stroke-opacity=\"0.8\" "
                + "stroke-linecap=\"round\" stroke-linejoin=\"round\">\n"
            for (low, high) in stretches {
                if let c = route.coordinate(at: low) {
                    let (x, y) = xy(c)
                    out += "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"4\" fill=\"#2a9d8f\" stroke=\"none\"/>\n"
                }
                let pts = route.coordinates(from: low, to: high).map {
                    let (x, y) = xy($0); return "\(f(x)),\(f(y))"
                }
                if pts.count > 1 { out += "<polyline points=\"\(pts.joined(separator: " "))\"/>\n" }
            }
            out += "</g>\n"
        }

        // Radii.
        out += "<g id=\"radii\">\n"
        for p in tour.points {
            let (x, y) = xy(p.coordinate)
            out +=
                "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"\(f(p.triggerRadiusMeters * scale))\" fill=\"#ef8354\" "
                + "fill-opacity=\"0.14\" stroke=\"#ef8354\" stroke-width=\"1.5\" stroke-dasharray=\"5 4\"/>\n"
        }
        out += "</g>\n"

        // Trace: runs of one accuracy class as one polyline; gaps over 5 s as a dotted line.
        if !drawn.isEmpty {
            out +=
                "<g id=\"trace\" fill=\"none\" stroke-width=\"3\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n"
            var run: [String] = []
            var runColour = ""
            func flush() {
                if run.count > 1 {
                    out += "<polyline points=\"\(run.joined(separator: " "))\" stroke=\"\(runColour)\"/>\n"
                }
                run = []
            }
            var previous: Fix?
            for point in drawn {
                let fix = point.fix
                let (x, y) = xy(fix.coordinate)
                let svgPoint = "\(f(x)),\(f(y))"
                // Each segment takes the colour of the fix it leads to.
                let colour = Self.colour(for: fix.horizontalError)
                if let prev = previous, point.gapBefore > 5 {
                    flush()
                    let (px, py) = xy(prev.coordinate)
                    out +=
                        "<line x1=\"\(f(px))\" y1=\"\(f(py))\" x2=\"\(f(x))\" y2=\"\(f(y))\" stroke=\"#555\" "
                        + "stroke-dasharray=\"2 5\"><title>no fix for \(Int(point.gapBefore)) s</title></line>\n"
                    run = [svgPoint]
                } else if colour != runColour, let last = run.last {
                    flush()
                    run = [last, svgPoint]
                } else {
                    run.append(svgPoint)
                }
                runColour = colour
                previous = fix
            }
            flush()
            out += "</g>\n"
        }
        // Points, numbered, with titles.
        out += "<g id=\"points\">\n"
        for p in tour.points {
            let (x, y) = xy(p.coordinate)
            out +=
                "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"12\" fill=\"#2b2d42\" stroke=\"#fff\" stroke-width=\"2\">"
                + "<title>\(Self.escape(p.title)) (radius \(Int(p.triggerRadiusMeters)) m)</title></circle>\n"
            out +=
                "<text x=\"\(f(x))\" y=\"\(f(y + 4.5))\" font-size=\"13\" font-weight=\"bold\" fill=\"#fff\" "
                + "text-anchor=\"middle\">\(p.order)</text>\n"
            // Titles sit left of their point, unless that would run off the picture.
            if x - 16 - Self.textWidth(p.title, size: 15) < 4 {
                out += Self.label(p.title, x: x + 16, y: y + 5, size: 15, colour: "#2b2d42")
            } else {
                out += Self.label(p.title, x: x - 16, y: y + 5, size: 15, colour: "#2b2d42", anchor: "end")
            }
        }
        out += "</g>\n"

        // Trigger markers.
        if let report {
            out += "<g id=\"triggers\">\n"
            for p in report.points {
                guard let t = p.trigger, let lat = t.latitude, let lng = t.longitude else { continue }
                let (x, y) = xy(Coordinate(latitude: lat, longitude: lng))
                out +=
                    "<path d=\"M\(f(x)),\(f(y - 8)) L\(f(x + 8)),\(f(y)) L\(f(x)),\(f(y + 8)) L\(f(x - 8)),\(f(y)) Z\" "
                    + "fill=\"#ffd166\" stroke=\"#2b2d42\" stroke-width=\"1.5\"><title>point \(p.order) triggered at "
                    + "\(WalkTime.offset(t.offsetSeconds))</title></path>\n"
                // The label goes on the side of the marker away from its point (whose title is on the left).
                let (cx, cy) = xy(
                    tour.points.first { $0.id == p.id }?.coordinate ?? Coordinate(latitude: lat, longitude: lng))
                let text = "▶\(p.order) \(WalkTime.offset(t.offsetSeconds))"
                if x >= cx {
                    out += Self.label(text, x: x + 11, y: y + 4, size: 12, colour: "#6b4e00")
                } else {
                    out += Self.label(
                        text, x: x, y: y < cy ? y - 12 : y + 21, size: 12, colour: "#6b4e00", anchor: "middle")
                }
            }
            out += "</g>\n"
        }

        // Ignored fixes on top: an outlier often lands right on a point.
        if !ignored.isEmpty {
            out += "<g id=\"ignored\" stroke=\"#c1121f\" stroke-width=\"2\">\n"
            for fix in ignored {
                let (x, y) = xy(fix.coordinate)
                out +=
                    "<path d=\"M\(f(x - 5)),\(f(y - 5)) L\(f(x + 5)),\(f(y + 5)) M\(f(x - 5)),\(f(y + 5)) L\(f(x + 5)),\(f(y - 5))\">"
                    + "<title>ignored fix at \(Self.escape(ISO8601.format(fix.time)))</title></path>\n"
            }
            out += "</g>\n"
        }

        // Scale bar: a round length about a fifth of the width.
        let target = (width - 2 * margin) / 5 / scale
        let nice = [5.0, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000, 20000, 50000]
        let length = nice.last { $0 <= target } ?? nice[0]
        let barY = height - 30
        out += "<g id=\"scale\" font-size=\"13\" fill=\"#2b2d42\">\n"
        out +=
            "<rect x=\"\(f(margin))\" y=\"\(f(barY - 6))\" width=\"\(f(length * scale / 2))\" height=\"6\" fill=\"#2b2d42\"/>\n"
        out +=
            "<rect x=\"\(f(margin + length * scale / 2))\" y=\"\(f(barY - 6))\" width=\"\(f(length * scale / 2))\" height=\"6\" "
            + "fill=\"#fff\" stroke=\"#2b2d42\"/>\n"
        out += "<text x=\"\(f(margin))\" y=\"\(f(barY + 12))\">0</text>\n"
        out +=
            "<text x=\"\(f(margin + length * scale))\" y=\"\(f(barY + 12))\" text-anchor=\"middle\">"
            + (length >= 1000 ? "\(String(format: "%g", length / 1000)) km" : "\(Int(length)) m") + "</text>\n"
        out += "</g>\n"

        // Legend (only with a trace), on its own row above the scale bar so narrow maps keep it.
        if !drawn.isEmpty {
            let ly = barY - 26
            var lx = margin
            out += "<g id=\"legend\" font-size=\"13\" fill=\"#2b2d42\">\n"
            out += "<text x=\"\(f(lx))\" y=\"\(f(ly))\">fix accuracy:</text>\n"
            lx += 90
            var classes = Self.accuracyClasses.map { ($0.colour, $0.label) }
            if drawn.contains(where: { $0.fix.horizontalError == nil }) {
                classes.append((Self.unknownAccuracy, "unknown"))
            }
            for (colour, text) in classes {
                out +=
                    "<line x1=\"\(f(lx))\" y1=\"\(f(ly - 4))\" x2=\"\(f(lx + 22))\" y2=\"\(f(ly - 4))\" stroke=\"\(colour)\" stroke-width=\"4\"/>\n"
                out += "<text x=\"\(f(lx + 27))\" y=\"\(f(ly))\">\(Self.escape(text))</text>\n"
                lx += 85
            }
            if !ignored.isEmpty {
                out +=
                    "<path d=\"M\(f(lx)),\(f(ly - 9)) L\(f(lx + 10)),\(f(ly + 1)) M\(f(lx)),\(f(ly + 1)) L\(f(lx + 10)),\(f(ly - 9))\" stroke=\"#c1121f\" stroke-width=\"2\"/>\n"
                let label =
                    ignoredTotal > ignored.count ? "ignored (\(ignored.count) of \(ignoredTotal) shown)" : "ignored"
                out += "<text x=\"\(f(lx + 15))\" y=\"\(f(ly))\">\(Self.escape(label))</text>\n"
            }
            out += "</g>\n"
        }
        out +=
            "<text x=\"\(f(width - margin))\" y=\"\(f(barY))\" font-size=\"16\" font-weight=\"bold\" fill=\"#2b2d42\" text-anchor=\"middle\">N ↑</text>\n"
        out += "</svg>\n"
        return out
    }

    /// Text with a pale halo so it stays readable over the route and the trace.
    static func label(_ text: String, x: Double, y: Double, size: Int, colour: String, anchor: String = "start")
        -> String
    {
        "<text x=\(quoted(x)) y=\(quoted(y)) font-size=\"\(size)\" fill=\"\(colour)\" text-anchor=\"\(anchor)\" "
            + "stroke=\"#f6f4ef\" stroke-width=\"4\" paint-order=\"stroke\" stroke-linejoin=\"round\">\(escape(text))</text>\n"
    }

    /// About how wide `text` is in a sans-serif face at `size` px (no font metrics here).
    static func textWidth(_ text: String, size: Double) -> Double { Double(text.count) * size * 0.56 }

    private static func quoted(_ v: Double) -> String { "\"" + String(format: "%.1f", v) + "\"" }

    /// Text for XML: markup characters escaped, and characters XML 1.0 does not allow (C0
    /// controls other than tab and line ends, U+FFFE, U+FFFF) or discourages (DEL and the C1
    /// controls) replaced by U+FFFD. A title from a stranger's tour.json must not make the file
    /// unreadable, or smuggle a terminal escape into it.
    static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&apos;".unicodeScalars)
            default: out.append(isXMLText(scalar) ? scalar : "\u{FFFD}")
            }
        }
        return String(out)
    }

    static func isXMLText(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D, 0x20...0x7E, 0xA0...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}
