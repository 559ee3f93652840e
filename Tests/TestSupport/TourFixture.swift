import Foundation

/// Writes tour folders for tests that need more than the demo tour: protected tours, more languages,
/// large media (resumes, throughput), odd file names. Media bytes are deterministic noise, so a test
/// can compare a download byte for byte with the file on disk.
public struct TourFixture: Sendable {
    public var id: String
    public var slug: String
    public var isProtected: Bool
    public var languages: [String]
    public var points: Int
    /// Bytes of each point's audio file (0: no audio).
    public var audioBytes: Int
    public var subtitles: Bool
    public var images: Bool
    /// Overrides the audio file name of point 1 (to test names that need escaping).
    public var firstAudioName: String?

    public init(
        id: String = UUID().uuidString.lowercased(), slug: String = "fixture-tour", isProtected: Bool = false,
        languages: [String] = ["en"], points: Int = 2, audioBytes: Int = 4096, subtitles: Bool = false,
        images: Bool = false, firstAudioName: String? = nil
    ) {
        self.id = id
        self.slug = slug
        self.isProtected = isProtected
        self.languages = languages
        self.points = points
        self.audioBytes = audioBytes
        self.subtitles = subtitles
        self.images = images
        self.firstAudioName = firstAudioName
    }

    /// The audio file of point `order` (1-based) in `language`, relative to the folder.
    public func audioPath(order: Int, language: String) -> String {
        if order == 1, let firstAudioName { return "media/\(language)/\(firstAudioName)" }
        return "media/\(language)/\(String(format: "%02d", order)).mp3"
    }

    public func pointID(order: Int) -> String { "\(id)-p\(order)" }

    /// Writes the folder as `parent/NAME` (NAME: the slug) and returns it.
    @discardableResult
    public func write(in parent: URL, name: String? = nil) throws -> URL {
        let root = parent.appendingPathComponent(name ?? slug, isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var languageInfo: [String: Any] = [:]
        for language in languages {
            languageInfo[language] = [
                "title": "\(slug) (\(language))", "description": "A tour for tests in \(language).",
                "completionMessage": "Done (\(language)).",
            ]
        }
        var pointList: [[String: Any]] = []
        for order in 1...max(1, points) {
            var content: [String: Any] = [:]
            for language in languages {
                var c: [String: Any] = [
                    "title": "Point \(order) (\(language))", "description": "Text \(order) in \(language).",
                ]
                if audioBytes > 0 {
                    let path = audioPath(order: order, language: language)
                    try Self.writeNoise(
                        root.appendingPathComponent(path), bytes: audioBytes, seed: UInt64(order * 31 + language.count))
                    c["audio"] = path
                }
                if subtitles {
                    let path = "media/\(language)/\(String(format: "%02d", order)).srt"
                    try Self.write(
                        root.appendingPathComponent(path),
                        Data("1\n00:00:00,000 --> 00:00:01,000\nPoint \(order)\n".utf8))
                    c["subtitles"] = path
                }
                if images {
                    let path = "media/p\(order).jpg"
                    try Self.writeNoise(
                        root.appendingPathComponent(path), bytes: 1000 + order, seed: UInt64(900 + order))
                    c["image"] = path
                }
                content[language] = c
            }
            pointList.append([
                "id": pointID(order: order), "order": order,
                "location": ["lat": 44.4939 + Double(order) * 0.001, "lng": 11.3426],
                "triggerRadiusMeters": 30, "content": content,
            ])
        }
        let tour: [String: Any] = [
            "format": 1, "id": id, "slug": slug, "city": "Bologna", "difficulty": "easy", "durationMinutes": 25,
            "distanceKm": 1.4, "isProtected": isProtected, "defaultLanguage": languages[0],
            "route": "44.4939,11.3426;44.4945,11.346", "languages": languageInfo, "points": pointList,
        ]
        try Self.write(
            root.appendingPathComponent("tour.json"),
            JSONSerialization.data(withJSONObject: tour, options: [.prettyPrinted, .sortedKeys]))
        return root
    }

    static func write(_ url: URL, _ data: Data) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    /// `bytes` of deterministic noise, written in blocks (large files never sit whole in memory).
    public static func writeNoise(_ url: URL, bytes: Int, seed: UInt64) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var state = seed | 1
        var remaining = bytes
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while remaining > 0 {
            let n = min(remaining, block.count)
            for i in 0..<n {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                block[i] = UInt8(truncatingIfNeeded: state)
            }
            try handle.write(contentsOf: block[0..<n])
            remaining -= n
        }
    }
}
