import TourStore

/// Collecting the blobs nothing points at once a tour switched version or was removed.
package enum StoreCleanup {
    package static func afterSwitch(_ store: TourStore, reporter: DownloadReporter?) throws(AppError) {
        let report: CollectionReport
        do { report = try store.collectGarbage(partials: false) } catch { throw AppError(error) }
        if report.blobsRemoved > 0, let reporter, reporter.mode != .json {
            reporter.note(
                "Freed \(ByteCount.format(report.bytesFreed)) (\(report.blobsRemoved) file\(report.blobsRemoved == 1 ? "" : "s") no version uses any more)"
            )
        }
    }
}
