import Foundation
import GRDB
import TourModel

extension TourStore {
    /// Re-hashes the blobs the given tours use (all blobs when nil) and checks the catalog.
    /// `progress` hears the bytes as they are read.
    public func verify(tourIDs: [String]?, progress: @Sendable (Int64) -> Void = { _ in }) throws(StoreError)
        -> VerifyReport
    {
        var report = VerifyReport()
        // The tours and the blob rows as of one moment (no lock is taken: a writer may go on).
        let (allTours, blobRows) = try read { db in
            (try Self.load(db, tourIDs: nil, media: blobs.media), try BlobRecord.fetchAll(db))
        }
        let tours = allTours.filter { tourIDs?.contains($0.id) ?? true }
        // Which installed files each blob holds, to name them in a problem.
        var uses: [String: [(String, TourLanguage)]] = [:]
        for tour in tours {
            for language in tour.languages {
                for file in language.files {
                    let point = file.pointID.flatMap { id in language.points.first { $0.id == id } }
                    let what = "\(file.role.noun) of \(point.map { "point \($0.order)" } ?? "the tour")"
                    uses[file.sha256, default: []].append(
                        (
                            "\(tour.slug) (\(language.language)): \(what)",
                            TourLanguage(tourID: tour.id, language: language.language)
                        ))
                }
            }
        }
        let checked = tourIDs == nil ? blobRows : blobRows.filter { uses[$0.sha256] != nil }
        let onDisk = blobs.blobFiles()
        for blob in checked.sorted(by: { $0.sha256 < $1.sha256 }) {
            // Recorded and not yet moved into the store (a download stopped in between; its part
            // file holds it): nothing uses it yet, so nothing is damaged. Counted as unused below.
            if onDisk[blob.sha256] == nil, uses[blob.sha256] == nil { continue }
            report.blobsChecked += 1
            var issue: BlobProblem.Issue?
            if let size = onDisk[blob.sha256] {
                if size != blob.size {
                    issue = .wrongSize(size)
                } else {
                    do {
                        let (sha, read) = try BlobStore.hash(blobs.url(of: blob.sha256))
                        report.bytesChecked += read
                        progress(read)
                        if sha != blob.sha256 { issue = .wrongHash(sha) }
                    } catch {
                        // Gone since it was listed: missing (unless a writer took it out, below).
                        guard !FileManager.default.fileExists(atPath: blobs.url(of: blob.sha256).path) else {
                            throw error
                        }
                        issue = .missing
                    }
                }
            } else {
                issue = .missing
            }
            if let issue {
                let users = uses[blob.sha256] ?? []
                report.problems.append(
                    BlobProblem(
                        sha256: blob.sha256, size: blob.size, issue: issue,
                        usedBy: users.map(\.0), installations: Array(Set(users.map(\.1))).sorted()))
            }
        }
        // A writer (remove, update, gc) that took blobs out after that moment took out their rows
        // first: what the catalog no longer names now is no damage.
        // (A blob whose bytes are wrong is damage whoever names it: writers never rewrite one.)
        if report.problems.contains(where: { $0.issue == .missing }) {
            let named = try read { db in try Set(String.fetchAll(db, sql: "SELECT sha256 FROM versionFile")) }
            report.problems.removeAll { $0.issue == .missing && !named.contains($0.sha256) }
        }
        if tourIDs == nil {
            let used = Set(uses.keys)
            for blob in blobRows where !used.contains(blob.sha256) {
                report.unusedBlobs += 1
                report.unusedBytes += blob.size
            }
        }
        report.catalogCheck = try read { db in
            let quick = try String.fetchAll(db, sql: "PRAGMA quick_check")
            if quick != ["ok"] { return quick.prefix(5).joined(separator: "; ") }
            let broken = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            return broken.isEmpty ? "ok" : "\(broken.count) rows point at nothing"
        }
        return report
    }
}
