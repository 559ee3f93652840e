import Foundation
import TestSupport
import Testing

@testable import Curation
@testable import Walk

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `walkscape map`: the SVG parses as XML and holds what a person expects to see.
@Suite("walkscape map", .serialized)
struct MapCommandTests {
    /// Collects every element with its attributes, and which `<g id>` it sits in.
    final class SVGReader: NSObject, XMLParserDelegate {
        struct Element { var name: String; var group: String?; var attributes: [String: String] }
        var elements: [Element] = []
        var groups: [String?] = []
        var texts: [String] = []
        var currentText = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append(Element(name: name, group: groups.compactMap { $0 }.last, attributes: attributes))
            groups.append(name == "g" ? attributes["id"] : nil)
            currentText = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { currentText += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            groups.removeLast()
            if name == "text" { texts.append(currentText) }
            currentText = ""
        }

        func count(_ name: String, in group: String?) -> Int { elements.count { $0.name == name && $0.group == group } }
    }

    static func read(_ url: URL) throws -> SVGReader {
        let parser = try #require(XMLParser(contentsOf: url))
        let reader = SVGReader()
        parser.delegate = reader
        #expect(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
        return reader
    }

    @Test(
        "the demo with its trace: route, five numbered points and radii, coloured trace, triggers, ignored fix, scale bar"
    )
    func demoWithTrace() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("demo.svg")
        let result = try runWalkscape(["map", "tours/demo", "--trace", "tours/demo/traces/walk.nmea", "-o", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("wrote \(out.path) ("))
        let svg = try Self.read(out)
        let root = try #require(svg.elements.first)
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["width"] == "1000")
        #expect(svg.elements.contains { $0.name == "polyline" && $0.attributes["id"] == "route" })
        #expect(svg.count("circle", in: "radii") == 5)
        #expect(svg.count("circle", in: "points") == 5)
        #expect(svg.count("path", in: "triggers") == 5)
        #expect(svg.count("path", in: "ignored") == 1)
        #expect(svg.count("line", in: "trace") == 1)  // the 9-second outage, dotted
        let traceColours = Set(
            svg.elements.filter { $0.group == "trace" && $0.name == "polyline" }.compactMap { $0.attributes["stroke"] })
        #expect(!traceColours.isEmpty && traceColours.isSubset(of: Set(TourMap.accuracyClasses.map(\.colour))))
        for title in ["Piazza del Duomo", "Orsanmichele", "Piazza della Signoria", "Ponte Vecchio", "Palazzo Pitti"] {
            #expect(svg.texts.contains(title))
        }
        #expect(svg.texts.contains("▶1 +02:18"))
        #expect(svg.texts.contains("▶5 +14:42"))
        #expect(svg.texts.contains("50 m"))
        #expect(svg.count("circle", in: "start") == 1)
        #expect(svg.texts.contains("fix accuracy:"))
        #expect(svg.texts.contains { $0.hasPrefix("points heard 5/5") })
    }

    @Test("without a trace: the tour alone, in Italian, no legend")
    func tourOnly() throws {
        let dir = try TemporaryDirectory()
        let out = dir.file("tour.svg")
        let result = try runWalkscape(["map", "tours/demo", "-l", "it", "-o", out.path, "--width", "600"])
        #expect(result.status == 0, "\(result.stderr)")
        let svg = try Self.read(out)
        #expect(svg.elements.first?.attributes["width"] == "600")
        #expect(svg.count("circle", in: "points") == 5)
        #expect(!svg.elements.contains { $0.attributes["id"] == "trace" || $0.attributes["id"] == "legend" })
        #expect(svg.texts.contains("Firenze: dal Duomo a Palazzo Pitti"))
    }

    @Test("titles are escaped, so any title makes valid XML")
    func escaping() {
        #expect(
            TourMap.escape(#"Caffè "Rivoire" & <Signoria>'s"#)
                == "Caffè &quot;Rivoire&quot; &amp; &lt;Signoria&gt;&apos;s")
    }

    @Test("an unwritable output: one line, non-zero exit")
    func unwritable() throws {
        let result = try runWalkscape(["map", "tours/demo", "-o", "/no/such/dir/map.svg"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("walkscape: /no/such/dir/map.svg: cannot write"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
