import Foundation
import TestSupport

/// A small valid tour folder that a test then makes hostile: two points 100 m apart on a street
/// running north from (45.0, 9.0); point 1 has a 1 s narration, its subtitles and an image; a
/// GPX walk passes both points. Text fields are set by the test, and `tour.json` is written by
/// JSONSerialization, so any string (control characters included) arrives as JSON encodes it.
struct TourBuilder {
    let root: URL
    var title = "Quiet walk"
    var completionMessage = "Thank you."
    var pointTitles = ["One", "Two"]
    var pointDescription = "A place."
    var audio: String? = "media/one.mp3"
    var subtitles: String? = "media/one.srt"
    var image: String? = "media/one.png"
    var traces = ["traces/walk.gpx"]

    init(in dir: TemporaryDirectory, name: String = "tour") throws {
        root = dir.url.appendingPathComponent(name)
        let fm = FileManager.default
        try fm.createDirectory(at: root.appendingPathComponent("media"), withIntermediateDirectories: true)
        try fm.createDirectory(at: root.appendingPathComponent("traces"), withIntermediateDirectories: true)
        try fm.copyItem(at: try FixtureAudio.tone(seconds: 1).mp3, to: file("media/one.mp3"))
        try Data("1\n00:00:00,100 --> 00:00:00,800\nHello.\n".utf8).write(to: file("media/one.srt"))
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]).write(to: file("media/one.png"))
        try Data(Self.walkGPX().utf8).write(to: file("traces/walk.gpx"))
    }

    func file(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// Writes `tour.json` and returns the folder.
    @discardableResult
    func write() throws -> URL {
        var first: [String: Any] = ["title": pointTitles[0], "description": pointDescription]
        if let audio { first["audio"] = audio }
        if let subtitles { first["subtitles"] = subtitles }
        if let image { first["image"] = image }
        let manifest: [String: Any] = [
            "format": 1, "id": "hostile", "slug": "hostile",
            "languages": ["en": ["title": title, "completionMessage": completionMessage]],
            "points": [
                [
                    "id": "p1", "order": 1, "location": ["lat": 45.0, "lng": 9.0], "triggerRadiusMeters": 25,
                    "content": ["en": first],
                ],
                [
                    "id": "p2", "order": 2, "location": ["lat": 45.0009, "lng": 9.0], "triggerRadiusMeters": 25,
                    "content": ["en": ["title": pointTitles[1]]],
                ],
            ],
            "traces": traces,
        ]
        let data = try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys])
        try data.write(to: file("tour.json"))
        return root
    }

    /// Two minutes walking north at 1.3 m/s from 10 m south of point 1, one fix a second.
    static func walkGPX() -> String {
        var gpx = #"<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
        for t in 0...120 {
            let lat = 45.0 + (Double(t) * 1.3 - 10) / 111_132.95
            let time = Date(timeIntervalSince1970: 1_776_500_000 + Double(t))
            gpx += #"<trkpt lat="\#(lat)" lon="9.0"><time>\#(time.formatted(.iso8601))</time></trkpt>"#
        }
        return gpx + "</trkseg></trk></gpx>\n"
    }
}
