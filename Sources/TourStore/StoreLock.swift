import FileAccess
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One command at a time changes the store: a download, an update, a removal, a repair or a
/// collection holds an exclusive `flock` on `store.lock` for its whole run. Without it a `gc`
/// could delete a blob a download has just finished, or two downloads write one part file.
/// Readers (a walk, `tours --installed`) take no lock: SQLite gives them a consistent catalog.
/// The kernel drops the lock however its holder ends, SIGKILL included.
public final class StoreLock: @unchecked Sendable {
    private let file: LockFile

    private init(file: LockFile) { self.file = file }

    /// Takes the lock, or says which process holds it.
    public static func acquire(_ location: StoreLocation, purpose: String) throws(StoreError) -> StoreLock {
        try TourStore.checkFolder(location)
        do { try FileManager.default.createDirectory(at: location.dataFolder, withIntermediateDirectories: true) } catch
        {
            throw StoreError(
                .io, "cannot create the data folder \(location.dataFolder.path): \(error.localizedDescription)")
        }
        let file = LockFile(path: location.lockFile.path, permissions: 0o644)
        switch file.tryAcquire(purpose: purpose) {
        case .held:
            return StoreLock(file: file)
        case .busy(let holder):
            let who = holder.map { " (pid \($0.pid): \($0.purpose))" } ?? ""
            throw StoreError(
                .busy, "another walkscape is changing the tour store\(who); try again when it has finished")
        case .unavailable(let reason):
            throw StoreError(.io, "cannot open \(location.lockFile.path): \(reason)")
        }
    }

    deinit { release() }

    public func release() { file.release() }
}
