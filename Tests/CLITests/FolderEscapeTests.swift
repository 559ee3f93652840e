import Foundation
import TestSupport
import Testing

/// A tour folder whose links lead outside it: no command reads what is out there.
@Suite("tour folders that lead outside themselves", .serialized)
struct FolderEscapeTests {
    @Test("subtitles through a link to /etc: lint names the path and prints nothing of /etc/passwd")
    func lintDoesNotReadThroughALinkToEtc() throws {
        let dir = try TemporaryDirectory()
        var tour = try TourBuilder(in: dir)
        tour.subtitles = "media/out/passwd"
        try tour.write()
        try FileManager.default.createSymbolicLink(atPath: tour.file("media/out").path, withDestinationPath: "/etc")
        let line =
            "tour.json: points[0].content.en.subtitles: media/out/passwd leads outside the tour folder (to /etc/passwd)"
        let lint = try runWalkscape(["lint", tour.root.path], home: dir)
        #expect(lint.status == 1)
        #expect(lint.stdout.hasPrefix("error: \(line) [tour-folder]\n"), "\(lint.stdout)")
        #expect(!lint.stdout.contains("root:") && !lint.stderr.contains("root:"))
        for arguments in [
            ["preview", tour.root.path, "--fast", "--no-audio"], ["map", tour.root.path, "-o", dir.file("m.svg").path],
        ] {
            let result = try runWalkscape(arguments, home: dir)
            #expect(result.status == 65)
            #expect(result.stderr == "walkscape: \(tour.root.path)/\(line)\n")
        }
    }

    @Test("a tour refused for another reason: lint's own pass over tour.json does not look through the link either")
    func lintsOwnChecksStayInside() throws {
        let dir = try TemporaryDirectory()
        let outside = try TemporaryDirectory(prefix: "outside")
        try outside.write("secret.srt", "1\nroot:x:0:0\nsecret\n")
        let root = dir.url.appendingPathComponent("dup")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("media"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: root.appendingPathComponent("media/a.srt").path,
            withDestinationPath: outside.file("secret.srt").path)
        let json = """
            {"format": 1, "id": "dup", "slug": "dup", "languages": {"en": {"title": "Dup"}},
             "points": [
              {"id": "a", "order": 1, "location": {"lat": 45.0, "lng": 9.0}, "triggerRadiusMeters": 30, "content": {"en": {"title": "A"}}},
              {"id": "b", "order": 1, "location": {"lat": 45.001, "lng": 9.0}, "triggerRadiusMeters": 30, "content": {"en": {"title": "B"}}},
              {"id": "c", "order": 3, "location": {"lat": 45.002, "lng": 9.0}, "triggerRadiusMeters": 30,
               "content": {"en": {"title": "C", "subtitles": "media/a.srt"}}}]}
            """
        try Data(json.utf8).write(to: root.appendingPathComponent("tour.json"))
        let lint = try runWalkscape(["lint", root.path], home: dir)
        #expect(lint.status == 1)
        #expect(
            lint.stdout.contains(
                "error: points[2]: content.en.subtitles: media/a.srt leads outside the tour folder (to \(outside.file("secret.srt").path)) [outside-folder]"
            ),
            "\(lint.stdout)")
        #expect(!lint.stdout.contains("root:"))
    }
}
