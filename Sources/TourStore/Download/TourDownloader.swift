import Foundation
import TourAPI
import TourModel

/// Downloads a tour into the store and switches it to the new version atomically
/// (docs/store.md): the missing files first, up to `concurrency` at once, each checked and renamed
/// into `media/`; then one transaction. A kill at any moment leaves the old version or the new
/// one, and the next run resumes the part files.
public struct TourDownloader: Sendable {
    public let store: TourStore
    let source: any TourSource
    /// What is wrong with a blob as narration (nil: it is MP3). The store cannot judge audio
    /// itself (it knows no decoder); the command line passes Playback's sniffer in.
    let audioCheck: @Sendable (URL) -> String?
    /// A narration's loudness (nil: not measured). Measured once per blob that plays, after its
    /// download, and kept in the catalog in the switch's transaction (docs/loudness.md).
    let measure: (@Sendable (URL) -> Loudness?)?
    let concurrency: Int
    let report: @Sendable (DownloadEvent) -> Void
    let now: @Sendable () -> Date
    /// Waits out the pause between failed attempts at a file.
    let timer: any RetryTimer
    /// Blobs fetched again though present (`verify` found them damaged): each stays, and plays, until
    /// its replacement is renamed over it, so a repair that cannot reach the service loses nothing.
    public var refetch: Set<String> = []

    public init(
        store: TourStore, source: any TourSource, audioCheck: @escaping @Sendable (URL) -> String?,
        measure: (@Sendable (URL) -> Loudness?)? = nil, concurrency: Int = 4,
        report: @escaping @Sendable (DownloadEvent) -> Void = { _ in },
        now: @escaping @Sendable () -> Date = { Date() }, timer: any RetryTimer = SystemRetryTimer()
    ) {
        self.store = store
        self.source = source
        self.audioCheck = audioCheck
        self.measure = measure
        self.concurrency = max(1, concurrency)
        self.report = report
        self.now = now
        self.timer = timer
    }

    /// Asks the service for each language's details, points and manifest, and works out what the
    /// store lacks. Nothing is written.
    public func plan(
        tourID: String, slug: String, isProtected: Bool, service: String,
        languages: [String]
    ) async throws(StoreError) -> DownloadPlan {
        var contents: [String: TourContent] = [:]
        for language in Set(languages).sorted() {
            // The three questions at once; their answers judged in this order, so the first error
            // is the one the details would give (a locked tour, a tour gone).
            let points: [TourPoint]
            do {
                async let detailAnswer = source.tour(tourID, language: language)
                async let pointsAnswer = source.points(ofTour: tourID, language: language)
                async let manifestAnswer = source.manifest(ofTour: tourID, language: language)
                let detail = try await detailAnswer
                points = try await pointsAnswer
                let manifest = try await manifestAnswer
                contents[language] = TourContent(detail: detail, points: points, manifest: manifest)
            } catch let error as APIError {
                throw StoreError(error)
            } catch {
                throw StoreError(.cancelled, "cancelled")
            }
            try Self.refuseSharedIDs(points, slug: slug, language: language)
        }
        let fetchedAt = now()

        // Every file once, with every place it is used.
        var uses: [FileIdentity: (file: MediaFile, references: [FileReference], label: String)] = [:]
        for (language, content) in contents.sorted(by: { $0.key < $1.key }) {
            for (role, files) in [
                (FileRole.audio, content.manifest.audio), (.subtitles, content.manifest.subtitles),
                (.image, content.manifest.images),
            ] {
                for file in files {
                    let reference = FileReference(
                        role: role, pointID: file.pointID, language: language, fileLanguage: file.language)
                    let label = reference.label(points: content.points)
                    guard let size = file.sizeBytes, size >= 0 else {
                        throw StoreError(
                            .badData, "the service declares no size for the \(label): its download could not be checked"
                        )
                    }
                    let identity = FileIdentity(url: file.url, size: size)
                    if uses[identity] == nil {
                        uses[identity] = (file, [reference], "\(label) (\(identity.fileName))")
                    } else {
                        uses[identity]?.references.append(reference)
                    }
                }
            }
        }
        var known: [FileIdentity: String] = [:]
        var transfers: [Transfer] = []
        let bootID = BootID.current()
        var resumable: Int64 = 0
        for (identity, use) in uses.sorted(by: { $0.key < $1.key }) {
            if let sha = try store.knownBlob(identity), !refetch.contains(sha) {
                known[identity] = sha
            } else {
                // Judged now, before any file is fetched, by the rules the fetch itself keeps.
                guard let link = URL(string: use.file.url) else {
                    throw StoreError(.badData, "\(use.label): the service gave a link that is not a URL")
                }
                if let problem = source.mediaLinkProblem(link) { throw StoreError(problem) }
                transfers.append(
                    Transfer(
                        identity: identity, references: use.references, url: use.file.url,
                        obtainedAt: fetchedAt, expiresAt: use.file.expiresAt, label: use.label))
                resumable += FileTransfer.resumable(identity, store: store, bootID: bootID)
            }
        }
        // Audio first: a walk can start with the narration even before the pictures.
        transfers.sort { ($0.references[0].role == .audio ? 0 : 1) < ($1.references[0].role == .audio ? 0 : 1) }

        let installed = try store.installedTour(id: tourID)
        let missing = Set(transfers.map(\.identity))
        var changed: [String] = []
        for (language, content) in contents.sorted(by: { $0.key < $1.key }) {
            let current = installed?.language(language)
            let files = Self.identities(content.manifest)
            if current == nil || current?.fingerprint != content.fingerprint
                || current?.manifestVersion != content.manifest.version || !files.isDisjoint(with: missing)
            {
                changed.append(language)
            }
        }
        // Renamed or locked on the service since: the languages switch again, to record it.
        if let installed, installed.slug != slug || installed.isProtected != isProtected {
            changed = contents.keys.sorted()
        }
        return DownloadPlan(
            tourID: tourID, slug: slug, isProtected: isProtected, service: service, contents: contents,
            fetchedAt: fetchedAt, changedLanguages: changed, known: known, transfers: transfers,
            resumableBytes: resumable)
    }

    /// Fetches what the plan lacks and switches the changed languages to their new version in
    /// one transaction. The caller holds the `StoreLock`.
    public func install(_ plan: DownloadPlan) async throws(StoreError) -> InstallReport {
        var result = InstallReport()
        guard !plan.isUpToDate else { return result }
        try store.blobs.prepare()
        try checkFreeSpace(plan)

        let counters = TransferCounters()
        var shas = plan.known
        let alreadyMeasured = measure == nil ? [:] : try store.knownLoudness()
        let judge = NarrationJudge(audioCheck: audioCheck, measure: measure, alreadyMeasured: alreadyMeasured)
        if !plan.transfers.isEmpty {
            report(.started(files: plan.transfers.count, bytes: plan.bytesToFetch, resumedBytes: plan.resumableBytes))
            let book = ManifestBook(
                source: source, tourID: plan.tourID, manifests: plan.contents.mapValues(\.manifest),
                fetchedAt: plan.fetchedAt, now: now)
            let fetched = try await fetchAll(plan.transfers, book: book, counters: counters, judge: judge)
            shas.merge(fetched) { _, new in new }
            result.filesFetched = fetched.count
        }
        // Stopped once every file was in: the narrations the judge had not reached are not judged
        // below, one full decode after another.
        if Task.isCancelled { throw StoreError(.cancelled, "cancelled") }
        let counted = counters.snapshot
        result.bytesReceived = counted.received
        result.requests = counted.requests
        result.linkRenewals = counted.renewals
        result.retries = counted.retries

        // Every file of every changed language must be in the store before the switch.
        var versions: [(VersionRecord, [VersionFileRecord])] = []
        for language in plan.changedLanguages {
            guard let content = plan.contents[language] else { continue }
            var files: [VersionFileRecord] = []
            for (role, list) in [
                (FileRole.audio, content.manifest.audio), (.subtitles, content.manifest.subtitles),
                (.image, content.manifest.images),
            ] {
                for file in list {
                    let identity = FileIdentity(url: file.url, size: file.sizeBytes ?? -1)
                    guard let sha = shas[identity], store.blobs.isPresent(sha, size: identity.size) else {
                        throw StoreError(
                            .damaged,
                            "\(identity.fileName) is missing from the store after its download: run the command again")
                    }
                    // Fetched narrations were judged as they arrived; one the store had is judged now.
                    if role == .audio, Task.isCancelled { throw StoreError(.cancelled, "cancelled") }
                    let problem = role == .audio ? judge.problem(sha, at: store.blobs.url(of: sha)) : nil
                    files.append(
                        VersionFileRecord(
                            versionId: 0, kind: role.rawValue, pointId: file.pointID,
                            language: file.language ?? (role == .image ? nil : language),
                            location: identity.location, size: identity.size, sha256: sha,
                            audioProblem: problem))
                }
            }
            let encoder = WalkscapeJSON.encoder()
            let detail: Data, points: Data
            do {
                detail = try WalkscapeJSON.encode(content.detail)
                points = try WalkscapeJSON.encode(content.points)
            } catch {
                throw StoreError(.badData, "the service's answer for \(plan.slug) cannot be kept: \(error)")
            }
            let map = content.manifest.offlineMap.flatMap { try? encoder.encode($0) }
            versions.append(
                (
                    VersionRecord(
                        id: nil, tourId: plan.tourID, language: language,
                        manifestVersion: content.manifest.version, fingerprint: content.fingerprint,
                        title: content.detail.title, detail: String(decoding: detail, as: UTF8.self),
                        points: String(decoding: points, as: UTF8.self),
                        offlineMap: map.map { String(decoding: $0, as: UTF8.self) }, installedAt: now()),
                    files
                ))
        }
        if Task.isCancelled { throw StoreError(.cancelled, "cancelled") }
        try store.switchVersions(
            tour: TourRecord(
                id: plan.tourID, slug: plan.slug, service: plan.service,
                isProtected: plan.isProtected),
            versions: versions,
            loudness: judge.measured.sorted { $0.key < $1.key }.map {
                LoudnessRecord(sha256: $0.key, $0.value, measuredAt: now())
            })
        result.switchedLanguages = plan.changedLanguages
        report(.switched(languages: plan.changedLanguages))
        return result
    }

    /// Runs the transfers, at most `concurrency` at a time. The first failure stops the others
    /// (their part files stay for the next run) and is the one reported.
    /// A narration is judged (does it play, how loud) as soon as it is in, beside the transfers
    /// still running, not after the last of them.
    private func fetchAll(
        _ transfers: [Transfer], book: ManifestBook,
        counters: TransferCounters, judge: NarrationJudge
    ) async throws(StoreError) -> [FileIdentity: String] {
        let bootID = BootID.current()
        let media = store.blobs
        let outcome: Result<[FileIdentity: String], StoreError> = await withTaskGroup(
            of: Result<(Transfer, String)?, StoreError>.self
        ) { group in
            var pending = transfers[...]
            var done: [FileIdentity: String] = [:]
            var failure: StoreError?
            func startNext() {
                guard failure == nil, let transfer = pending.popFirst() else { return }
                let job = FileTransfer(
                    transfer: transfer, store: store, source: source, book: book, bootID: bootID,
                    counters: counters, report: report, now: now, timer: timer)
                group.addTask {
                    do throws(StoreError) {
                        return .success((transfer, try await job.run()))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            for _ in 0..<concurrency { startNext() }
            while let next = await group.next() {
                switch next {
                case .success(nil):
                    break  // a narration judged
                case .success(let (transfer, sha)?):
                    done[transfer.identity] = sha
                    if done.count == transfers.count { report(.transfersEnded) }
                    if failure == nil, transfer.isNarration {
                        _ = group.addTaskUnlessCancelled {
                            await judge.judgeAside(sha, at: media.url(of: sha))
                            return .success(nil)
                        }
                    }
                    startNext()
                case .failure(let error):
                    // Keep the first real failure, not the cancellations it caused.
                    if failure == nil || failure?.kind == .cancelled && error.kind != .cancelled { failure = error }
                    group.cancelAll()
                }
            }
            if let failure { return .failure(failure) }
            return .success(done)
        }
        return try outcome.get()
    }

    /// Whether what `plan` fetches fits on the store's disk (`install` checks it first, too): a
    /// download refused for want of space never began.
    public func checkFreeSpace(_ plan: DownloadPlan) throws(StoreError) {
        let needed = plan.bytesToFetch - plan.resumableBytes
        guard needed > 0, let free = FreeSpace.available(at: store.location.dataFolder) else { return }
        // Room for the catalog's own growth too.
        let margin: Int64 = 256 << 10
        if needed + margin > free {
            throw StoreError(
                .noSpace,
                "not enough free space in \(store.location.dataFolder.path): the download needs \(ByteCount.format(needed + margin)), \(ByteCount.format(free)) is free"
            )
        }
    }

    /// Two points with one id would be merged into one (the catalog, the walk and the media all key
    /// points by id): refused, as a tour folder's are, naming the id and the orders that share it.
    static func refuseSharedIDs(_ points: [TourPoint], slug: String, language: String) throws(StoreError) {
        var orders: [String: [Int]] = [:]
        for point in points { orders[point.id, default: []].append(point.order) }
        guard let (id, shared) = orders.filter({ $0.value.count > 1 }).min(by: { $0.value.min()! < $1.value.min()! })
        else { return }
        throw StoreError(
            .badData,
            "the service gives \(shared.count) points of \(slug) in '\(language)' the same id \"\(id)\" (orders \(shared.sorted().map(String.init).joined(separator: ", "))): they would be merged into one, so the tour is not installed"
        )
    }

    static func identities(_ manifest: TourManifest) -> Set<FileIdentity> {
        Set(manifest.allFiles.map { FileIdentity(url: $0.url, size: $0.sizeBytes ?? -1) })
    }
}
