import Foundation

/// One file a tour serves under `/media/TOUR/PATH`, keyed by the relative path tour.json names. Only
/// files listed here can be served: request paths are looked up, never joined onto the folder.
struct MediaEntry: Sendable, Hashable {
    /// As written in tour.json (`media/en/01.mp3`).
    var relativePath: String
    var file: URL
    var stamp: FileStamp

    var contentType: String {
        switch file.pathExtension.lowercased() {
        case "mp3": "audio/mpeg"
        case "m4a", "mp4", "aac": "audio/mp4"
        case "ogg", "oga": "audio/ogg"
        case "wav": "audio/wav"
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
