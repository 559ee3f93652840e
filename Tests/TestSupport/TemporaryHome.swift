import Foundation

/// A throwaway folder for one test: a `--home` for walkscape, scratch files, fixtures.
/// Removed when the value is deinitialised.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL
    public var path: String { url.path }

    public init(prefix: String = "walkscape-test") throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
        url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    @discardableResult
    public func write(_ name: String, _ text: String) throws -> URL {
        let target = file(name)
        try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: target)
        return target
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
