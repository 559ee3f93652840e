import Foundation
import TestSupport
import Testing

@testable import TourModel

#if canImport(Glibc)
    import Glibc
#endif

/// Paths in a tour folder may not leave it (docs/tour-folder.md), and symbolic links are no way
/// round that: every path is resolved to the real file before it is accepted. A tour folder comes
/// from strangers (a download, an archive), so a link to `/etc` must never be read.
struct TourFolderConfinementTests {
    let base = TourFolderTests()

    func link(_ dir: TemporaryDirectory, _ name: String, to target: String) throws {
        let url = dir.file(name)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: target)
    }

    @Test func aLinkedFolderLeadingOutsideIsRefusedNamingTheFieldAndWhereItLeads() throws {
        let dir = try base.makeFolder { tour in
            base.editPoint(1, &tour) { point in
                point["content"] = ["en": ["title": "First", "subtitles": "media/out/passwd"]]
            }
        }
        try link(dir, "media/out", to: "/etc")
        #expect(
            base.loadError(dir)
                == "tour.json: points[1].content.en.subtitles: media/out/passwd leads outside the tour folder (to /etc/passwd)"
        )
    }

    @Test func aLinkedFileLeadingOutsideIsRefused() throws {
        let outside = try TemporaryDirectory(prefix: "outside")
        try outside.write("secret.mp3", "x")
        let dir = try base.makeFolder()
        try link(dir, "media/en/02.mp3", to: outside.file("secret.mp3").path)
        #expect(
            base.loadError(dir)
                == "tour.json: points[0].content.en.audio: media/en/02.mp3 leads outside the tour folder (to \(outside.file("secret.mp3").path))"
        )
    }

    @Test func aRelativeLinkClimbingOutIsRefusedToo() throws {
        let dir = try base.makeFolder()
        try link(dir, "traces/walk.nmea", to: "../../\(dir.url.lastPathComponent)-sibling/walk.nmea")
        let sibling = dir.url.deletingLastPathComponent().appendingPathComponent("\(dir.url.lastPathComponent)-sibling")
        try FileManager.default.createDirectory(at: sibling, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: sibling) }
        try Data("$GPGGA\n".utf8).write(to: sibling.appendingPathComponent("walk.nmea"))
        let error = try #require(base.loadError(dir))
        #expect(
            error.hasPrefix("tour.json: traces[0]: traces/walk.nmea leads outside the tour folder (to "), "\(error)")
    }

    @Test func linksThatStayInsideTheFolderAreFine() throws {
        let dir = try base.makeFolder()
        try link(dir, "media/en/02.mp3", to: "../it/01.mp3")  // relative, inside
        try link(dir, "media/en/01.srt", to: dir.file("media/en/01.mp3").path)  // absolute, inside
        let folder = try TourFolder.load(from: dir.url)
        #expect(folder.points[1].content["en"]?.audio?.lastPathComponent == "02.mp3")
    }

    @Test func aTourFolderReachedThroughALinkIsStillItself() throws {
        let dir = try base.makeFolder()
        let links = try TemporaryDirectory(prefix: "links")
        try FileManager.default.createSymbolicLink(atPath: links.file("tour").path, withDestinationPath: dir.path)
        let folder = try TourFolder.load(from: links.file("tour"))
        #expect(folder.points.count == 3)
    }

    @Test func aManifestLinkedFromOutsideIsRefused() throws {
        let dir = try base.makeFolder()
        let outside = try TemporaryDirectory(prefix: "outside")
        try FileManager.default.moveItem(at: dir.file("tour.json"), to: outside.file("tour.json"))
        try link(dir, "tour.json", to: outside.file("tour.json").path)
        #expect(
            base.loadError(dir) == "tour.json: leads outside the tour folder (to \(outside.file("tour.json").path))")
    }

    @Test func aFIFOOrAFolderWhereAFileShouldBeIsRefusedAsWhatItIs() throws {
        let dir = try base.makeFolder()
        try FileManager.default.removeItem(at: dir.file("media/en/01.srt"))
        #expect(mkfifo(dir.file("media/en/01.srt").path, 0o644) == 0)
        #expect(
            base.loadError(dir)
                == "tour.json: points[1].content.en.subtitles: media/en/01.srt is a FIFO, not a regular file")
        try FileManager.default.removeItem(at: dir.file("media/en/01.srt"))
        try FileManager.default.createDirectory(at: dir.file("media/en/01.srt"), withIntermediateDirectories: true)
        #expect(
            base.loadError(dir) == "tour.json: points[1].content.en.subtitles: media/en/01.srt is a folder, not a file")
    }
}
