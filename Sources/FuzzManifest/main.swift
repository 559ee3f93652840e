import CFuzzerShim
import Foundation
import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// libFuzzer target for the service's answers as the client decodes them: the tour list, a tour's
/// detail, its points and its manifest, in either dialect. The first byte picks the decoder, the
/// rest is the body. A body is either refused (a decoding error, which the client words in one
/// line) or gives values that keep a tour folder's limits (`TourLimits`: no NaN, infinity or
/// absurd size reaches arithmetic) and can be written back in both dialects and read again, as
/// the store does when it keeps them. Crashes, hangs and broken promises are findings.
///
///     scripts/fuzz.sh manifest 600        (make fuzz-manifest FUZZ_SECONDS=600)
///
/// With an empty corpus folder as its argument, the target first writes seed answers into it:
/// each shape in each dialect, as walkscape-server writes them.
enum Shape: UInt8, CaseIterable {
    case list, detail, points, manifest
}

func check(_ value: Double?, _ range: ClosedRange<Double>, _ what: String) {
    guard let value else { return }
    precondition(range.contains(value), "\(what) \(value) is outside \(range)")
}

func check(_ c: Coordinate?, _ what: String) {
    guard let c else { return }
    check(c.latitude, TourLimits.latitude, "\(what) latitude")
    check(c.longitude, TourLimits.longitude, "\(what) longitude")
}

/// Writes `value` in both dialects and reads each back: what the client keeps must stay readable.
func roundTrip<T: APIEncodable & Decodable>(_ value: T, _ type: T.Type) {
    for dialect in [APIDialect.live, .guide] {
        let data: Data
        do { data = try WalkscapeJSON.encode(value, dialect: dialect) } catch {
            preconditionFailure("a decoded \(T.self) cannot be written in the \(dialect) dialect: \(error)")
        }
        do { _ = try WalkscapeJSON.decoder().decode(T.self, from: data) } catch {
            preconditionFailure(
                "\(T.self) written in the \(dialect) dialect cannot be read back: \(error)\n"
                    + String(decoding: data, as: UTF8.self))
        }
    }
}

func checkSummary(_ s: TourSummary) {
    check(s.durationMinutes, TourLimits.durationMinutes, "durationMinutes")
    check(s.distanceKm, TourLimits.distanceKm, "distanceKm")
    s.route.forEach { check($0, "route") }
}

func checkDetail(_ d: TourDetail) {
    check(d.durationMinutes, TourLimits.durationMinutes, "durationMinutes")
    check(d.distanceKm, TourLimits.distanceKm, "distanceKm")
    check(d.startingPoint, "startingPoint")
    d.route.forEach { check($0, "route") }
}

func checkPoint(_ p: TourPoint) {
    check(p.coordinate, "point")
    check(p.triggerRadiusMeters, TourLimits.triggerRadiusMeters, "triggerRadiusMeters")
}

func checkManifest(_ m: TourManifest) {
    for file in m.allFiles {
        check(file.sizeBytes.map(Double.init), TourLimits.fileSizeBytes, "sizeBytes")
    }
    // Sums of sizes must not trap, whatever the count.
    precondition(m.totalBytes >= 0, "totalBytes \(m.totalBytes)")
    _ = m.fingerprint
    _ = m.expiresAt
}

let callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = { data, size in
    guard let data, size > 0, let shape = Shape(rawValue: data[0] % UInt8(Shape.allCases.count)) else { return 0 }
    let body = Data(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let decoder = WalkscapeJSON.decoder()
    do {
        switch shape {
        case .list:
            let tours = try decoder.decode([TourSummary].self, from: body)
            tours.forEach(checkSummary)
            roundTrip(tours, [TourSummary].self)
        case .detail:
            let detail = try decoder.decode(TourDetail.self, from: body)
            checkDetail(detail)
            roundTrip(detail, TourDetail.self)
        case .points:
            let points = try decoder.decode([TourPoint].self, from: body)
            points.forEach(checkPoint)
            roundTrip(points, [TourPoint].self)
        case .manifest:
            let manifest = try decoder.decode(TourManifest.self, from: body)
            checkManifest(manifest)
            roundTrip(manifest, TourManifest.self)
        }
    } catch {
        // Refused: the client says so in one line.
        let line = DecodingProblem.describe(error)
        precondition(!line.contains("\n") && !line.contains("\r"), "a refusal that is not one line: \(line)")
    }
    return 0
}

/// Answers in each shape and dialect, as walkscape-server writes them for a small tour.
func seeds() -> [(String, Data)] {
    let route = [Coordinate(latitude: 43.7726, longitude: 11.2554), Coordinate(latitude: 43.7731, longitude: 11.2560)]
    let summary = TourSummary(
        id: "3b6f7a0e-2c55-4c1e-8f4a-7d2f5e0c9a10", slug: "florence", title: ["en": "Florence", "it": "Firenze"],
        descriptionPreview: ["en": "Five stops."], completionMessage: ["en": "Done."], busInfo: ["it": "Bus 6"],
        city: "Florence", durationMinutes: 20, distanceKm: 1.18, difficulty: "facile", languages: ["en", "it"],
        isProtected: true, hasAccess: false, imageURL: "http://127.0.0.1:8080/media/t/cover.jpg", route: route)
    let detail = TourDetail(
        id: summary.id, slug: summary.slug, language: "en", title: "Florence", description: "Five stops.",
        completionMessage: "Done.", city: "Florence", durationMinutes: 20, distanceKm: 1.18, difficulty: "facile",
        languages: ["en", "it"], isProtected: true, hasAccess: true, startingPoint: route[0], route: route,
        pointCount: 2)
    let points = [
        TourPoint(id: "p1", order: 1, coordinate: route[0], triggerRadiusMeters: 25, title: "Duomo", description: "A."),
        TourPoint(
            id: "p2", order: 2, coordinate: route[1], triggerRadiusMeters: 30.5, title: "Pitti",
            audioURL: "http://127.0.0.1:8080/media/t/02.mp3"),
    ]
    let expires = Date(timeIntervalSince1970: 1_800_000_000)
    let link = "http://127.0.0.1:8080/media/t/media/en/01.mp3?X-Amz-Date=20260501T090000Z&X-Amz-Expires=86400"
    let manifest = TourManifest(
        tourID: summary.id, language: "en", version: "3",
        audio: [
            MediaFile(pointID: "p1", order: 1, url: link, sizeBytes: 48_213, expiresAt: expires),
            MediaFile(pointID: "p2", order: 2, url: link, sizeBytes: 1_048_576, expiresAt: expires),
        ],
        images: [MediaFile(pointID: "p1", url: link, sizeBytes: 9000)],
        subtitles: [MediaFile(pointID: "p1", language: "en", url: link, sizeBytes: 120)],
        offlineMap: OfflineMap(
            tilesURLTemplate: "https://tiles.walkscape.invalid/{z}/{x}/{y}.png",
            bounds: .init(north: 43.78, south: 43.76, east: 11.26, west: 11.25), recommendedZoomLevels: [14, 15, 16]))
    var out: [(String, Data)] = []
    for dialect in [APIDialect.live, .guide] {
        func add(_ shape: Shape, _ body: Data?) {
            guard let body else { return }
            out.append(("\(shape)-\(dialect)", Data([shape.rawValue]) + body))
        }
        add(.list, try? WalkscapeJSON.encode([summary], dialect: dialect))
        add(.detail, try? WalkscapeJSON.encode(detail, dialect: dialect))
        add(.points, try? WalkscapeJSON.encode(points, dialect: dialect))
        add(.manifest, try? WalkscapeJSON.encode(manifest, dialect: dialect))
    }
    return out
}

guard ws_fuzzer_available() != 0 else {
    FileHandle.standardError.write(
        Data(
            "fuzz-manifest: built without libFuzzer; build with -Xswiftc -sanitize=fuzzer (see scripts/fuzz.sh)\n".utf8)
    )
    exit(2)
}
if let corpus = CommandLine.arguments.dropFirst().first(where: { !$0.hasPrefix("-") }),
    (try? FileManager.default.contentsOfDirectory(atPath: corpus))?.isEmpty == true
{
    for (name, seed) in seeds() {
        try? seed.write(to: URL(fileURLWithPath: corpus).appendingPathComponent("seed-\(name).json"))
    }
}
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
