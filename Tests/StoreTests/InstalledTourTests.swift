import Foundation
import Testing
import TourModel

@testable import TourStore

/// An installed tour as its languages hold it: each language is the version it was downloaded at,
/// and languages at different versions need not have the same points.
@Suite struct InstalledTourTests {
    static let media = URL(fileURLWithPath: "/nonexistent/media", isDirectory: true)

    static func point(_ order: Int, latitude: Double = 43.77, language: String) -> TourPoint {
        TourPoint(
            id: "p\(order)", order: order,
            coordinate: Coordinate(latitude: latitude + Double(order) * 0.001, longitude: 11.25),
            triggerRadiusMeters: 20, title: "Point \(order) (\(language))")
    }

    static func language(_ code: String, version: String, points: [TourPoint]) -> InstalledLanguage {
        let files = points.map { point in
            InstalledFile(
                role: .audio, pointID: point.id, language: code,
                identity: FileIdentity(url: "https://media.example/\(code)/\(point.id)-\(version).mp3", size: 100),
                sha256: String(repeating: "\(point.order)", count: 64))
        }
        return InstalledLanguage(
            language: code, manifestVersion: version, fingerprint: version, installedAt: Date(timeIntervalSince1970: 0),
            detail: TourDetail(id: "tour", slug: "tour", language: code, title: "Tour (\(code))", languages: [code]),
            points: points, offlineMap: nil, files: files)
    }

    /// The service removed point 3 and moved point 2; German was dropped and stays installed as it
    /// was (or English was kept and German downloaded later, at the new version): a walk in each
    /// language has that language's points, where they are in its version, and no other's.
    @Test func eachLanguageWalksItsOwnVersionsPoints() throws {
        let old = (1...3).map { Self.point($0, language: "de") }
        var new = (1...2).map { Self.point($0, language: "en") }
        new[1].coordinate.latitude += 0.01
        let tour = InstalledTour(
            id: "tour", slug: "tour", service: "https://api.example", isProtected: false,
            languages: [
                Self.language("en", version: "2", points: new), Self.language("de", version: "1", points: old),
            ],
            media: Self.media)

        let english = try tour.playable(language: "en")
        #expect(english.points.map(\.id) == ["p1", "p2"])
        #expect(english.points.map(\.title) == ["Point 1 (en)", "Point 2 (en)"])
        #expect(english.points[1].coordinate == new[1].coordinate)
        let german = try tour.playable(language: "de")
        #expect(german.points.map(\.id) == ["p1", "p2", "p3"])
        #expect(german.points.map(\.title) == ["Point 1 (de)", "Point 2 (de)", "Point 3 (de)"])
        #expect(german.points[1].coordinate == old[1].coordinate)
        #expect(german.points.allSatisfy { $0.audio != nil })

        // A walk's folder has its language's points alone; lint's and map's every installed
        // version's, each where the default language has it (p3 is German's only).
        #expect(tour.folder(defaultLanguage: "en", onlyItsPoints: true).points.map(\.id).sorted() == ["p1", "p2"])
        let folder = tour.folder(defaultLanguage: "en")
        #expect(folder.points.map(\.id).sorted() == ["p1", "p2", "p3"])
        #expect(folder.points.first { $0.id == "p3" }?.content.keys.sorted() == ["de"])
        #expect(folder.points.first { $0.id == "p2" }?.coordinate == new[1].coordinate)
        #expect(folder.points.first { $0.id == "p1" }?.content["de"]?.title == "Point 1 (de)")
    }
}
