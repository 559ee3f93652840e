import Crypto
import Foundation
import TourModel

/// A tour folder as the server serves it: the validated folder, the files it may serve, what the
/// files looked like when loaded (to notice edits), and a content hash per language (its version).
struct ServedTour: Sendable {
    let folder: TourFolder
    /// Relative path (as tour.json names it) to file; only files inside the folder.
    let media: [String: MediaEntry]
    /// Absolute path to stamp, for tour.json and every file it names; nil stamps for missing files.
    let stamps: [String: FileStamp?]
    /// Language to a hash of what is published in it: texts, points, media paths, sizes and times.
    let contentHashes: [String: String]
    /// Language to published version number (counts content changes; from the data folder).
    var versions: [String: Int] = [:]
    /// Files tour.json names that are not served (a symlink leading out of the folder).
    let refused: [String]

    var id: String { folder.id }

    /// Loads and validates `root`. Media whose real path leaves the folder is left out and reported
    /// in `refused`; the tour itself is still served.
    static func load(from root: URL) throws(TourModelError) -> ServedTour {
        let folder = try TourFolder.load(from: root)
        let rootPath = folder.root.path
        let realRoot = realPath(rootPath) ?? rootPath
        var stamps: [String: FileStamp?] = [:]
        let manifest = folder.root.appendingPathComponent(TourFolder.manifestName).path
        stamps[manifest] = FileStamp.of(manifest)

        var files: [URL] = folder.image.map { [$0] } ?? []
        for point in folder.points {
            for content in point.content.values {
                files += [content.audio, content.subtitles, content.image].compactMap { $0 }
            }
        }
        var media: [String: MediaEntry] = [:]
        var refused: [String] = []
        for file in files {
            let relative = relativePath(of: file, in: rootPath)
            guard media[relative] == nil, !refused.contains(relative) else { continue }
            let stamp = FileStamp.of(file.path)
            stamps[file.path] = stamp
            guard let real = realPath(file.path), real.hasPrefix(realRoot + "/"), let stamp, stamp.isRegularFile else {
                refused.append(relative)
                continue
            }
            media[relative] = MediaEntry(relativePath: relative, file: file, stamp: stamp)
        }
        var hashes: [String: String] = [:]
        for language in folder.languages {
            hashes[language] = contentHash(folder, language: language, media: media)
        }
        return ServedTour(
            folder: folder, media: media, stamps: stamps, contentHashes: hashes, refused: refused.sorted())
    }

    static func relativePath(of file: URL, in rootPath: String) -> String {
        let path = file.path
        return path.hasPrefix(rootPath + "/") ? String(path.dropFirst(rootPath.count + 1)) : path
    }

    /// The served entry for a file of this tour, if it is one.
    func entry(for file: URL?) -> MediaEntry? {
        guard let file else { return nil }
        return media[Self.relativePath(of: file, in: folder.root.path)]
    }

    /// True when some file this tour was loaded from changed (or appeared, or went away) since.
    var hasChangedOnDisk: Bool {
        stamps.contains { path, stamp in FileStamp.of(path) != stamp }
    }

    /// SHA-256 over everything a walker gets in `language`: tour texts and numbers, points in order
    /// with their texts, and each media file's path, size and modification time.
    static func contentHash(_ folder: TourFolder, language: String, media: [String: MediaEntry]) -> String {
        var lines: [String] = []
        // Quoted and escaped, so no text can pass for the next line.
        func q(_ text: String?) -> String { text.map { $0.debugDescription } ?? "-" }
        func file(_ url: URL?) -> String {
            guard let url else { return "-" }
            let relative = relativePath(of: url, in: folder.root.path)
            guard let entry = media[relative] else { return "\(relative) unserved" }
            return "\(relative) \(entry.stamp.size) \(entry.stamp.modifiedSeconds).\(entry.stamp.modifiedNanoseconds)"
        }
        let info = folder.languageInfo[language]
        lines.append("tour \(q(folder.id)) \(folder.slug) \(q(folder.city)) \(q(folder.difficulty))")
        lines.append(
            "numbers \(folder.durationMinutes.map { "\($0)" } ?? "-") \(folder.distanceKm.map { "\($0)" } ?? "-") \(folder.isProtected)"
        )
        lines.append("route \(RoutePolyline.format(folder.route))")
        lines.append("image \(file(folder.image))")
        lines.append("title \(q(info?.title))")
        lines.append("description \(q(info?.description))")
        lines.append("completion \(q(info?.completionMessage))")
        lines.append("bus \(q(info?.busInfo))")
        if let playable = try? folder.playable(language: language) {
            for p in playable.points {
                lines.append(
                    "point \(q(p.id)) \(p.order) \(p.coordinate.latitude) \(p.coordinate.longitude) \(p.triggerRadiusMeters)"
                )
                lines.append("  title \(q(p.title))")
                lines.append("  text \(q(p.text))")
                lines.append("  audio \(file(p.audio))")
                lines.append("  subtitles \(file(p.subtitles))")
                lines.append("  image \(file(p.image))")
            }
        }
        let digest = SHA256.hash(data: Data(lines.joined(separator: "\n").utf8))
        return Hex.string(digest)
    }
}
