import Foundation
import TourModel

/// One file a tour serves under `/media/TOUR/PATH`, keyed by the relative path tour.json names. Only
/// files listed here can be served: request paths are looked up, never joined onto the folder.
struct MediaEntry: Sendable, Hashable {
    /// As written in tour.json (`media/en/01.mp3`).
    var relativePath: String
    var file: URL
    var stamp: FileStamp

    /// What the bytes are, sniffed once when the entry is made (the tour is re-read when a file
    /// changes): an AAC file named `.mp3` is served as `audio/mp4`, as the live service's storage
    /// serves what was uploaded.
    var contentType: String

    init(relativePath: String, file: URL, stamp: FileStamp) {
        self.relativePath = relativePath
        self.file = file
        self.stamp = stamp
        contentType = MediaSniffer.sniff(file).mimeType ?? Self.contentType(byExtension: file.pathExtension)
    }

    /// For what is not audio (subtitles, images); audio extensions on bytes that are not audio are
    /// served as plain bytes.
    static func contentType(byExtension pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "srt": "application/x-subrip"
        case "vtt": "text/vtt"
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        case "gif": "image/gif"
        default: "application/octet-stream"
        }
    }
}
