import Crypto
import FileAccess
import Foundation
import TourAPI
import TourModel

/// Fetches one file into its part file, resuming what an earlier run left, and moves it into the
/// store once it is whole: the declared size reached exactly, hashed while streaming, flushed.
///
/// - Resume: `Range: bytes=N-` with `If-Range` (the first answer's ETag, else Last-Modified). A
///   206 from byte N goes on; a 200 means the file changed, so it starts over. A part file with
///   no validator, or written before the last reboot, starts over too: its bytes cannot be
///   vouched for.
/// - Signed URLs: one known to have expired (`expiresAt`, `X-Amz-Date` + `X-Amz-Expires`), or
///   refused with a 403, is replaced by the same file's URL in a fresh manifest, and the file
///   goes on from the same byte.
/// - A size other than the declared one is tried once more from the start, then named in the
///   error: the declared size is the only integrity check the service offers.
struct FileTransfer: Sendable {
    let transfer: Transfer
    let store: TourStore
    let source: any TourSource
    let book: ManifestBook
    let bootID: String
    let counters: TransferCounters
    let report: @Sendable (DownloadEvent) -> Void
    let now: @Sendable () -> Date
    let timer: any RetryTimer

    /// Consecutive failed attempts (no byte gained) before giving up on a file.
    static let maxFailures = 6
    /// Consecutive refusals (403/404) with fresh links before giving up.
    static let maxRefusals = 3

    private enum Problem: Error {
        /// The answer's size is not the declared one (nil: more bytes than declared arrived).
        case sizeMismatch(actual: Int64?)
        case stop(StoreError)
    }

    private var declared: Int64 { transfer.identity.size }
    private var label: String { transfer.label }

    /// Whether the part file an earlier run left for `identity` can be resumed, and how far.
    static func resumable(_ identity: FileIdentity, store: TourStore, bootID: String) -> Int64 {
        guard let record = try? store.partial(identity), record.bootId == bootID, record.validator != nil else {
            return 0
        }
        let size = store.blobs.partFiles()[identity.partName] ?? 0
        return size <= identity.size ? size : 0
    }

    /// The blob's SHA-256 once the file is in the store.
    func run() async throws(StoreError) -> String {
        let identity = transfer.identity
        let partURL = store.blobs.partURL(for: identity)
        let part = try PartFile(url: partURL)
        var validator: String?
        if let record = try store.partial(identity), record.bootId == bootID, part.length <= declared {
            validator = record.validator
        }
        if validator == nil, part.length > 0 { try part.truncate(to: 0) }
        try store.savePartial(identity, validator: validator, bootID: bootID, now: now())
        var hasher = SHA256()
        if part.length > 0 { try part.hashPrefix(part.length, into: &hasher) }

        var url = transfer.url
        var obtainedAt = transfer.obtainedAt
        var expiresAt = transfer.expiresAt
        var failures = 0
        var refusals = 0
        // Progress is passing the furthest byte any attempt reached: a host that ignores Range and
        // breaks off sends the same first bytes every time, which is no progress at all.
        var furthest = part.length
        var retriedMismatch = false
        // A file declared empty is asked for all the same: the host's answer is what checks the
        // declaration (an empty blob installed unasked left a narration silent).
        var answered = false

        func renewLink(because why: String) async throws(StoreError) {
            let reference = transfer.references[0]
            let (file, fetchedAt) = try await book.renewed(reference, since: obtainedAt)
            if let file, FileIdentity(url: file.url, size: file.sizeBytes ?? -1) != identity {
                // Replaced on the service: no later run can resume the part of the old file. (One no
                // longer named here may still be another point's, and is kept.)
                store.blobs.removePart(identity)
                try? store.forgetPartial(identity)
            }
            guard let file else {
                throw StoreError(
                    .tourChanged,
                    "\(label) is no longer in the tour on the service: it changed during the download"
                )
            }
            guard FileIdentity(url: file.url, size: file.sizeBytes ?? -1) == identity else {
                throw StoreError(
                    .tourChanged,
                    "\(label) changed on the service during the download"
                )
            }
            url = file.url
            obtainedAt = fetchedAt
            expiresAt = file.expiresAt
            counters.addRenewal()
            report(.linkRenewed(label: label, atByte: part.length, why: why))
        }

        func startOver() throws(StoreError) {
            try part.truncate(to: 0)
            hasher = SHA256()
            validator = nil
        }

        while part.length < declared || (declared == 0 && !answered) {
            if Task.isCancelled { throw StoreError(.cancelled, "cancelled") }
            if let expiry = expiresAt, now() >= expiry, await book.trustsExpiry(transfer.references[0].language) {
                try await renewLink(because: "its link expired")
                continue
            }
            let offset = part.length
            var headers = HTTPHeaderFields()
            if offset > 0, let validator {
                headers.add("Range", "bytes=\(offset)-")
                headers.add("If-Range", validator)
            }
            guard let requestURL = URL(string: url) else {
                throw StoreError(.badData, "\(label): the service gave a link that is not a URL")
            }
            counters.addRequest()
            let response: HTTPResponse
            do {
                response = try await source.fetch(requestURL, headers: headers, timeout: nil)
            } catch {
                if Task.isCancelled { throw StoreError(.cancelled, "cancelled") }
                failures += 1
                guard Self.isWorthAnotherTry(error), failures < Self.maxFailures else { throw StoreError(error) }
                try await pause(after: failures, reason: "\(error.message); trying again")
                continue
            }

            do throws(Problem) {
                switch response.status {
                case 206:
                    guard let range = ContentRange(response.headers["Content-Range"]), range.start == offset else {
                        // Not the bytes asked for: trust nothing, start over.
                        await response.body.discard(upTo: 0)
                        try wrap { () throws(StoreError) in try startOver() }
                        failures += 1
                        if failures >= Self.maxFailures {
                            let said = TerminalText.line(
                                String((response.headers["Content-Range"] ?? "none").prefix(80)))
                            throw Problem.stop(
                                StoreError(
                                    .badData,
                                    "\(label): the media host answers with other bytes than those asked for (Content-Range: \(said))"
                                ))
                        }
                        continue
                    }
                    if let total = range.total, total != declared { throw Problem.sizeMismatch(actual: total) }
                case 200:
                    if let length = response.headers["Content-Length"].flatMap({ Int64($0) }), length != declared {
                        throw Problem.sizeMismatch(actual: length)
                    }
                    // The whole file (the first request, or the file changed since the part began).
                    try wrap { () throws(StoreError) in
                        if part.length > 0 { try startOver() }
                        validator = Self.validator(response.headers)
                        try store.savePartial(identity, validator: validator, bootID: bootID, now: now())
                    }
                case 416:
                    // The part file claims more than the file has: start over.
                    await response.body.discard(upTo: 0)
                    try wrap { () throws(StoreError) in try startOver() }
                    failures += 1
                    if failures >= Self.maxFailures {
                        throw Problem.stop(
                            StoreError(.badData, "\(label): the media host refuses every range (HTTP 416)"))
                    }
                    continue
                case 401, 403, 404, 410:
                    // An expired or refused signed link (S3 answers 403), or a file moved: ask
                    // the service for the file's current link and go on from the same byte.
                    await response.body.discard()
                    refusals += 1
                    if refusals > Self.maxRefusals {
                        throw Problem.stop(
                            // The service's links are bad data, not a login problem (exit 76, not 77).
                            StoreError(
                                .service(.protocolError),
                                "the media host refuses \(label) (HTTP \(response.status)) even with a fresh link from the service"
                            ))
                    }
                    let why =
                        [404, 410].contains(response.status)
                        ? "the media host did not find it (HTTP \(response.status))"
                        : "the media host refused its link (HTTP \(response.status))"
                    try await wrapAsync { () async throws(StoreError) in try await renewLink(because: why) }
                    continue
                default:
                    await response.body.discard()
                    failures += 1
                    let error = APIError.status(
                        response.status, body: nil, request: "GET \(identity.fileName)", retryAfter: nil)
                    guard error.kind == .temporary, failures < Self.maxFailures else {
                        throw Problem.stop(StoreError(error))
                    }
                    try await wrapAsync { () async throws(StoreError) in
                        try await pause(after: failures, reason: "HTTP \(response.status); trying again")
                    }
                    continue
                }

                // The body, straight to the part file and the hasher.
                let before = part.length
                var streamError: (any Error)?
                do {
                    for try await chunk in response.body {
                        if Task.isCancelled { throw CancellationError() }
                        if part.length + Int64(chunk.count) > declared { throw Problem.sizeMismatch(actual: nil) }
                        try chunk.withUnsafeBytes { bytes in
                            try part.append(bytes)
                            hasher.update(bufferPointer: bytes)
                        }
                        counters.add(received: Int64(chunk.count))
                        report(.received(Int64(chunk.count)))
                    }
                } catch let problem as Problem {
                    throw problem
                } catch let error as StoreError {
                    throw Problem.stop(error)
                } catch {
                    streamError = error
                }
                if Task.isCancelled { throw Problem.stop(StoreError(.cancelled, "cancelled")) }
                if part.length > before, part.length > furthest {
                    failures = 0
                    refusals = 0
                }
                furthest = max(furthest, part.length)
                if let streamError {
                    failures += 1
                    let reason = (streamError as? TransportError)?.detail ?? "\(streamError)"
                    guard failures < Self.maxFailures else {
                        throw Problem.stop(
                            StoreError(
                                .service(.temporary),
                                "\(label): the download keeps breaking off (\(reason)); run the command again to resume"
                            ))
                    }
                    try await wrapAsync { () async throws(StoreError) in
                        try await pause(
                            after: failures, reason: "\(reason) at byte \(part.length); resuming from there")
                    }
                    continue
                }
                // A complete answer that stops short: the file is smaller than declared.
                if part.length < declared { throw Problem.sizeMismatch(actual: part.length) }
                answered = true
            } catch {
                switch error {
                case .stop(let error):
                    throw error
                case .sizeMismatch(let actual):
                    await response.body.discard(upTo: 0)
                    guard !retriedMismatch else {
                        // Nothing of it is worth keeping.
                        store.blobs.removePart(identity)
                        try? store.forgetPartial(identity)
                        // A curator's edit on the service since the plan, or the service's fault?
                        // A manifest asked for now: one fetched earlier, for another file's
                        // link, may be from before the service saw the edit.
                        let (file, _) = try await book.renewed(transfer.references[0], since: now())
                        if file.map({ FileIdentity(url: $0.url, size: $0.sizeBytes ?? -1) }) != identity {
                            throw StoreError(.tourChanged, "\(label) changed on the service during the download")
                        }
                        let said = actual.map { "\($0) bytes" } ?? "more bytes"
                        throw StoreError(
                            .badData,
                            "\(label): the service declares \(declared) bytes but sends \(said); tell the tour's curator, or try again later"
                        )
                    }
                    retriedMismatch = true
                    try startOver()
                    counters.addRetry()
                    report(
                        .retrying(
                            label: label,
                            reason: "its size is not the declared \(declared) bytes; trying once more from the start"))
                }
            }
        }

        let sha = Hex.string(hasher.finalize())
        let finishedAt = now()
        try await DiskWait.run { () throws(StoreError) in
            try part.sync()
            try store.recordBlob(sha, for: identity, now: finishedAt)
            try store.blobs.install(part: partURL, as: sha)
            try store.forgetPartial(identity)
        }
        report(.fileDone(label: label, bytes: declared))
        return sha
    }

    private func pause(after failures: Int, reason: String) async throws(StoreError) {
        counters.addRetry()
        report(.retrying(label: label, reason: reason))
        let milliseconds = min(3000, 200 << min(failures - 1, 4))
        do { try await timer.sleep(for: .milliseconds(milliseconds)) } catch {
            throw StoreError(.cancelled, "cancelled")
        }
    }

    /// Whether a request that got no answer is tried again, after a pause: a temporary failure
    /// (a timeout, a broken connection, a 5xx), and also a host that could not be reached at all,
    /// which for a download under way is a server restarting or a link dropping for a moment (the
    /// command's first requests to the service have reached it). A host that never answers is
    /// given up on after `maxFailures` tries, in its own words. A host the name service says does
    /// not exist is not waited for: a media link on a mistyped host fails at once, not after
    /// ten seconds of pauses.
    static func isWorthAnotherTry(_ error: APIError) -> Bool {
        error.kind == .temporary
            || (error.kind == .unavailable && error.transport.map { $0.requestWasNotSent && $0.isTransient } == true)
    }

    /// The answer's validator for `If-Range`: a strong ETag, else Last-Modified (a weak ETag may
    /// not be used for ranges).
    static func validator(_ headers: HTTPHeaderFields) -> String? {
        if let tag = headers["ETag"], !tag.hasPrefix("W/") { return tag }
        return headers["Last-Modified"]
    }

    private func wrap(_ body: () throws(StoreError) -> Void) throws(Problem) {
        do { try body() } catch { throw Problem.stop(error) }
    }

    private func wrapAsync(_ body: () async throws(StoreError) -> Void) async throws(Problem) {
        do { try await body() } catch { throw Problem.stop(error) }
    }
}
