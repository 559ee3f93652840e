import Foundation
import TestSupport
import Testing

@testable import TourModel

struct TourFolderTests {
    /// A valid two-language, three-point tour; `edit` changes the JSON object before writing.
    func makeFolder(_ edit: (inout [String: Any]) -> Void = { _ in }) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory(prefix: "tour-folder")
        for name in ["media/en/01.mp3", "media/en/01.srt", "media/it/01.mp3", "media/en/02.mp3", "traces/walk.nmea"] {
            try dir.write(name, "x")
        }
        var tour: [String: Any] = [
            "format": 1, "id": "tour-1", "slug": "test-walk", "city": "Bologna", "difficulty": "easy",
            "durationMinutes": 20, "distanceKm": 1.2, "defaultLanguage": "en",
            "route": "44.4938,11.3430;44.4949,11.3465",
            "languages": [
                "en": ["title": "Test Walk", "description": "d", "completionMessage": "Well done"],
                "it": ["title": "Passeggiata", "completionMessage": "Bravo"],
            ],
            "points": [
                [
                    "id": "p2", "order": 2, "location": ["lat": 44.4949, "lng": 11.3465], "triggerRadiusMeters": 30,
                    "content": ["en": ["title": "Second", "audio": "media/en/02.mp3"]],
                ],
                [
                    "id": "p1", "order": 1, "location": ["lat": 44.4938, "lng": 11.3430], "triggerRadiusMeters": 25,
                    "content": [
                        "en": [
                            "title": "First", "description": "one", "audio": "media/en/01.mp3",
                            "subtitles": "media/en/01.srt",
                        ],
                        "it": ["title": "Primo", "audio": "media/it/01.mp3"],
                    ],
                ],
                [
                    "id": "p3", "order": 3, "location": ["lat": 44.4952, "lng": 11.3480], "triggerRadiusMeters": 40,
                    "content": ["en": ["title": "Third"]],
                ],
            ],
            "traces": ["traces/walk.nmea"],
        ]
        edit(&tour)
        let data = try JSONSerialization.data(withJSONObject: tour, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: dir.file("tour.json"))
        return dir
    }

    func loadError(_ dir: TemporaryDirectory) -> String? {
        do {
            _ = try TourFolder.load(from: dir.url)
            return nil
        } catch {
            return error.message
        }
    }

    func editPoint(_ index: Int, _ tour: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
        var points = tour["points"] as! [[String: Any]]
        change(&points[index])
        tour["points"] = points
    }

    @Test func goodFolderLoadsInOrder() throws {
        let dir = try makeFolder()
        let folder = try TourFolder.load(from: dir.url)
        #expect(folder.points.map(\.id) == ["p1", "p2", "p3"])
        #expect(folder.languages == ["en", "it"])
        #expect(folder.defaultLanguage == "en")
        #expect(folder.route.count == 2)
        #expect(folder.traces.map(\.lastPathComponent) == ["walk.nmea"])
        #expect(folder.points[0].content["en"]?.subtitles?.lastPathComponent == "01.srt")
    }

    @Test func playableFallsBackToDefaultLanguageTitleWithoutAudio() throws {
        let dir = try makeFolder()
        let folder = try TourFolder.load(from: dir.url)
        let it = try folder.playable(language: "it")
        #expect(it.title == "Passeggiata" && it.completionMessage == "Bravo")
        #expect(it.points.map(\.title) == ["Primo", "Second", "Third"])
        #expect(it.points[0].audio?.lastPathComponent == "01.mp3")
        #expect(it.points[1].audio == nil)  // no Italian narration: announced, not played in English
        let en = try folder.playable()
        #expect(en.language == "en" && en.points[2].audio == nil && en.points[0].subtitles != nil)
        #expect(throws: TourModelError.self) { try folder.playable(language: "fr") }
    }

    @Test(
        "a broken folder names file, field and reason",
        arguments: [
            (
                "latitude out of range",
                "tour.json: points[1].location.lat: 95.5 is not a latitude (must be within -90...90)"
            ),
            ("duplicate order", "tour.json: points[2].order: 2 is used twice (points[0] and points[2])"),
            ("missing audio", "tour.json: points[1].content.it.audio: media/it/missing.mp3 does not exist"),
            ("missing radius", "tour.json: points[0].triggerRadiusMeters: is required"),
            ("radius as text", "tour.json: points[0].triggerRadiusMeters: must be a number"),
            (
                "zero radius",
                "tour.json: points[2].triggerRadiusMeters: 0.0 must be greater than 0 and at most 1000 metres"
            ),
            (
                "path escapes",
                "tour.json: points[0].content.en.audio: ../secret.mp3 must be a path inside the tour folder (no leading / and no ..)"
            ),
            (
                "unknown language in point",
                "tour.json: points[2].content.fr: 'fr' is not one of the tour's languages (en, it)"
            ),
            ("future format", "tour.json: format: 2 is not supported (this walkscape reads format 1)"),
            ("bad default language", "tour.json: defaultLanguage: 'de' is not one of languages (en, it)"),
            ("duplicate id", "tour.json: points[1].id: \"p2\" is used twice (points[0] and points[1])"),
            ("bad slug", "tour.json: slug: \"Test Walk\" must be lowercase letters, digits and -"),
            (
                "route lng,lat",
                "tour.json: route: point 1 \"139.76,35.68\": not a coordinate on earth (latitude and longitude swapped? it is \"lat,lng\")"
            ),
        ])
    func brokenFolder(_ name: String, _ expected: String) throws {
        let dir = try makeFolder { tour in
            switch name {
            case "latitude out of range": editPoint(1, &tour) { $0["location"] = ["lat": 95.5, "lng": 11.0] }
            case "duplicate order": editPoint(2, &tour) { $0["order"] = 2 }
            case "missing audio":
                editPoint(1, &tour) { p in
                    var content = p["content"] as! [String: Any]
                    content["it"] = ["title": "Primo", "audio": "media/it/missing.mp3"]
                    p["content"] = content
                }
            case "missing radius": editPoint(0, &tour) { $0["triggerRadiusMeters"] = nil }
            case "radius as text": editPoint(0, &tour) { $0["triggerRadiusMeters"] = "thirty" }
            case "zero radius": editPoint(2, &tour) { $0["triggerRadiusMeters"] = 0 }
            case "path escapes":
                editPoint(0, &tour) { $0["content"] = ["en": ["title": "x", "audio": "../secret.mp3"]] }
            case "unknown language in point": editPoint(2, &tour) { $0["content"] = ["fr": ["title": "Troisième"]] }
            case "future format": tour["format"] = 2
            case "bad default language": tour["defaultLanguage"] = "de"
            case "duplicate id": editPoint(1, &tour) { $0["id"] = "p2" }
            case "bad slug": tour["slug"] = "Test Walk"
            case "route lng,lat": tour["route"] = "139.76,35.68;139.77,35.69"
            default: Issue.record("unknown case \(name)")
            }
        }
        #expect(loadError(dir) == expected)
    }

    @Test func invalidJSONSaysSo() throws {
        let dir = try TemporaryDirectory()
        try dir.write("tour.json", "{\"format\": 1,\n \"id\": }")
        #expect(loadError(dir) == "tour.json: not valid JSON (invalid value at line 2, column 8)")
    }

    /// Foundation's reader took trailing commas as JSON5 does, and called `03` and `1.` numbers
    /// out of range: a tour folder is strict JSON, and each is named where it is.
    @Test(arguments: [
        ("{\"format\": 1,\n \"id\": \"t\",\n}", "a comma before a closing bracket at line 2, column 11"),
        ("{\"format\": 1, \"points\": [1, 2,]}", "a comma before a closing bracket at line 1, column 30"),
        ("{\"format\": 03}", "03 is not a JSON number at line 1, column 12"),
        ("{\"format\": 1.}", "1. is not a JSON number at line 1, column 12"),
        ("{\"format\": .5}", ".5 is not a JSON number at line 1, column 12"),
        ("{\"format\": +1}", "+1 is not a JSON number at line 1, column 12"),
        ("{\"format\": 1e}", "1e is not a JSON number at line 1, column 12"),
        // Columns are characters, as an editor counts them, not UTF-8 bytes.
        ("{\"x\": [\"日本語\", 1,]}", "a comma before a closing bracket at line 1, column 16"),
    ])
    func jsonThatIsNotStrictIsNamed(text: String, problem: String) throws {
        let dir = try TemporaryDirectory()
        try dir.write("tour.json", text)
        #expect(loadError(dir) == "tour.json: not valid JSON (\(problem))")
    }

    /// A tour.json saved as UTF-16 (with or without a mark) loads as before the strict scan, which
    /// read its bytes and called the first `.` "not a JSON number"; its trailing comma is still named.
    @Test func utf16TourJSONLoadsAndIsReadStrictlyAllTheSame() throws {
        let demo = try String(contentsOf: TestPaths.demoTour.appendingPathComponent("tour.json"), encoding: .utf8)
        for encoding in [String.Encoding.utf16, .utf16LittleEndian, .utf16BigEndian, .utf32LittleEndian] {
            let dir = try TemporaryDirectory()
            try FileManager.default.copyItem(at: TestPaths.demoTour, to: dir.url.appendingPathComponent("demo"))
            let file = dir.url.appendingPathComponent("demo/tour.json")
            try #require(demo.data(using: encoding)).write(to: file)
            #expect(try TourFolder.load(from: dir.url.appendingPathComponent("demo")).points.count == 5, "\(encoding)")
            try #require("{\"format\": 1,}".data(using: encoding)).write(to: file)
            #expect(throws: TourModelError.self) { try TourFolder.load(from: dir.url.appendingPathComponent("demo")) }
        }
    }

    @Test func strictNumbersAndStringsHoldingCommasAndBracketsPass() {
        for number in ["0", "-0", "10", "-1.25", "1e5", "1E-5", "0.5e+3", "43.77262"] {
            #expect(JSONStrictSyntax.isJSONNumber(ArraySlice(Array(number.utf8))), "\(number)")
        }
        let text = #"{"a": "x,]", "b": [1, "2,}", -3.5e2], "c": {"d": "\",}"}, "e": true, "f": null}"#
        #expect(JSONStrictSyntax.firstProblem(in: Array(text.utf8)) == nil)
    }

    @Test func notAFolderOrNoManifest() throws {
        let dir = try TemporaryDirectory()
        #expect(loadError(dir) == "\(dir.url.standardizedFileURL.path): not a tour folder (no tour.json)")
        do {
            _ = try TourFolder.load(from: dir.url.appendingPathComponent("nope"))
            Issue.record("expected an error")
        } catch {
            #expect(error.message.hasSuffix("/nope: no such folder"))
        }
    }
}
