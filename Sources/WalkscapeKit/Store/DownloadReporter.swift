import Foundation
import TourModel
import TourStore

/// How a download shows itself: on a terminal one live line per tour (bytes, rate, time left);
/// otherwise plain lines (a line per file, and the progress every few seconds); with `--json` one
/// JSON object per line. Events arrive from concurrent transfers, so everything is under a lock.
package final class DownloadReporter: @unchecked Sendable {
    package enum Mode {
        case live, plain, json
        /// Nothing printed (a repair under `verify --json`, whose stdout is one JSON report).
        case silent
    }

    /// One line of `--json` output; absent fields are left out.
    package struct Line: Encodable {
        package var event: String
        package var tour: String?
        package var slug: String?
        package var languages: [String]?
        package var files: Int?
        package var bytes: Int64?
        package var filesToFetch: Int?
        package var bytesToFetch: Int64?
        package var resumedBytes: Int64?
        package var received: Int64?
        package var total: Int64?
        package var bytesPerSecond: Int64?
        package var file: String?
        package var reason: String?
        package var atByte: Int64?
        package var bytesReceived: Int64?
        package var requests: Int?
        package var linkRenewals: Int?
        package var retries: Int?
        package var seconds: Double?
        package var message: String?
        package var unplayable: [String]?
        package var damaged: [String]?

        package init(_ event: String) { self.event = event }
    }

    package let mode: Mode
    private let lock = NSLock()
    private var name = ""
    private var total: Int64 = 0
    private var received: Int64 = 0
    private var started = Date()
    private var samples: [(at: Date, bytes: Int64)] = []
    private var lastShown = Date.distantPast
    private var liveLineOpen = false
    /// When the last bytes arrived: the progress says when nothing has for `stall`.
    private var lastData = Date()
    /// Draws the progress while nothing arrives (`tickEvery`), from the transfers' start to the
    /// command's last word.
    private var ticker: (any DispatchSourceTimer)?

    /// No bytes for this long is a stall: the progress says so instead of a rate and a time left,
    /// and the rate after it is measured from its end.
    static let stall: TimeInterval = 3
    static let tickEvery: TimeInterval = 1

    package init(mode: Mode) {
        self.mode = mode
    }

    deinit { ticker?.cancel() }

    /// Bytes of the files under way that are on disk now (resumed plus received): what a stopped
    /// download keeps.
    package var keptBytes: Int64 { lock.withLock { received } }

    package static func mode(json: Bool) -> Mode {
        json ? .json : isatty(STDOUT_FILENO) == 1 ? .live : .plain
    }

    // MARK: What the command says

    /// `again`: planned anew after the tour changed on the service mid-download (what the first
    /// attempt fetched is what is already here).
    package func planned(_ plan: DownloadPlan, again: Bool = false) {
        guard mode != .silent else { return }
        lock.withLock {
            name = "\(plan.title) (\(plan.languages.joined(separator: ", ")))"
            switch mode {
            case .json:
                var line = Line("plan")
                line.tour = plan.tourID
                line.slug = plan.slug
                line.languages = plan.languages
                line.files = plan.fileCount
                line.bytes = plan.totalBytes
                line.filesToFetch = plan.filesToFetch
                line.bytesToFetch = plan.bytesToFetch
                line.resumedBytes = plan.resumableBytes
                emit(line)
            case .live, .plain, .silent:
                if plan.isUpToDate { return }
                var text = "\(name): \(plan.fileCount) files, \(ByteCount.format(plan.totalBytes))"
                if plan.filesToFetch < plan.fileCount {
                    text += "; \(plan.filesToFetch) to fetch (\(ByteCount.format(plan.bytesToFetch)))"
                }
                if plan.resumableBytes > 0 {
                    text +=
                        ", \(ByteCount.format(plan.resumableBytes)) already here from \(again ? "the attempt before" : "the last run")"
                }
                say(text)
            }
        }
    }

    package func upToDate(_ plan: DownloadPlan) {
        guard mode != .silent else { return }
        lock.withLock {
            if mode == .json {
                var line = Line("upToDate")
                line.tour = plan.tourID
                line.languages = plan.languages
                emit(line)
            } else {
                say("\(plan.title) (\(plan.languages.joined(separator: ", "))): up to date")
            }
        }
    }

    /// `unplayable`: narrations that do not play (announced instead); `damaged`: narrations that
    /// play, but not whole (what the decoder found).
    package func finished(
        _ plan: DownloadPlan, _ report: InstallReport, seconds: Double, unplayable: [String], damaged: [String] = []
    ) {
        guard mode != .silent else { return }
        lock.withLock {
            stopTicking()
            closeLiveLine()
            switch mode {
            case .json:
                var line = Line("installed")
                line.tour = plan.tourID
                line.languages = report.switchedLanguages
                line.files = report.filesFetched
                line.bytesReceived = report.bytesReceived
                line.requests = report.requests
                line.linkRenewals = report.linkRenewals
                line.retries = report.retries
                line.seconds = (seconds * 1000).rounded() / 1000
                line.unplayable = unplayable.isEmpty ? nil : unplayable
                line.damaged = damaged.isEmpty ? nil : damaged
                emit(line)
            case .live, .plain, .silent:
                let rate = seconds > 0 ? ", \(ByteCount.format(Int64(Double(report.bytesReceived) / seconds)))/s" : ""
                let fetched =
                    report.filesFetched == 0
                    ? "nothing to fetch"
                    : "\(report.filesFetched) file\(report.filesFetched == 1 ? "" : "s") fetched (\(ByteCount.format(report.bytesReceived)) in \(String(format: "%.1f", seconds)) s\(rate))"
                say("Installed \(name): \(fetched). Walk it offline: walkscape walk \(plan.slug)")
                for problem in unplayable + damaged { say("note: \(problem)") }
            }
        }
    }

    /// `word` as a shell reads it back: as it is when it holds nothing the shell treats specially,
    /// else in single quotes (a tour named by a title prefix such as `Piazza del`).
    package static func shellWord(_ word: String) -> String {
        let plain =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy {
                "-_./:@%+,=".unicodeScalars.contains($0)
                    || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
            }
        return plain ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Ctrl-C: what stays for the next run, and the command (its words) that resumes it.
    package func stopped(command: [String], keptBytes: Int64) {
        lock.withLock {
            stopTicking()
            closeLiveLine()
            let resume = command.map(Self.shellWord).joined(separator: " ")
            let text = "download stopped; `\(resume)` resumes it (\(ByteCount.format(keptBytes)) kept)"
            if mode == .json {
                var line = Line("stopped")
                line.message = text
                emit(line)
            }
            Console.err("walkscape: \(text)")
        }
    }

    package func failed(_ message: String) {
        lock.withLock {
            stopTicking()
            closeLiveLine()
            if mode == .json {
                var line = Line("error")
                line.message = message
                emit(line)
            }
        }
    }

    package func note(_ text: String) {
        guard mode != .silent else { return }
        lock.withLock { say(text) }
    }

    /// A warning on standard error, whatever the mode; the live progress line is closed first so
    /// that the two do not run into each other (it is drawn again on the next chunk).
    /// A warning goes to standard error; with `--json` it is also a `warning` line among the others,
    /// where a script reading them sees it in its place (a download planned again after the tour
    /// changed on the service was a second `plan` line with nothing to say why).
    package func warn(_ text: String) {
        lock.withLock {
            if mode == .json {
                var line = Line("warning")
                line.message = text
                emit(line)
            }
            sayAboveLiveLine(text, toStandardError: true)
        }
    }

    // MARK: What the transfers say

    package func handle(_ event: DownloadEvent) {
        lock.withLock {
            let now = Date()
            switch event {
            case .started(let files, let bytes, let resumed):
                total = bytes
                received = resumed
                started = now
                lastData = now
                samples = [(now, resumed)]
                startTicking()
                // The first progress line after an interval, not at the first chunk.
                lastShown = now
                if mode == .json {
                    var line = Line("start")
                    line.files = files
                    line.total = bytes
                    line.resumedBytes = resumed
                    emit(line)
                }
            case .received(let bytes):
                // The first bytes after a stall start the rate's window again.
                if now.timeIntervalSince(lastData) >= Self.stall { samples = [(now, received)] }
                received += bytes
                lastData = now
                showProgress(now)
            case .fileDone(let label, let bytes):
                switch mode {
                case .json:
                    var line = Line("file")
                    line.file = label
                    line.bytes = bytes
                    emit(line)
                case .plain:
                    say("  done: \(label), \(ByteCount.format(bytes))")
                case .live, .silent:
                    break
                }
            case .retrying(let label, let reason):
                switch mode {
                case .json:
                    var line = Line("retry")
                    line.file = label
                    line.reason = reason
                    emit(line)
                case .plain, .live:
                    sayAboveLiveLine("  \(label): \(reason)")
                case .silent:
                    break
                }
            case .linkRenewed(let label, let atByte, let why):
                switch mode {
                case .json:
                    var line = Line("linkRenewed")
                    line.file = label
                    line.atByte = atByte
                    line.reason = why
                    emit(line)
                case .silent:
                    break
                case .plain, .live:
                    sayAboveLiveLine(
                        "  \(label): \(why); a new link from the service, going on from byte \(atByte)")
                }
            case .transfersEnded:
                stopTicking()
            case .switched(let languages):
                if mode == .json {
                    var line = Line("switched")
                    line.languages = languages
                    emit(line)
                }
            }
        }
    }

    // MARK: Rendering (under the lock)

    /// The progress drawn every `tickEvery` while the transfers run, so that a stall shows.
    private func startTicking() {
        guard mode != .silent, ticker == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + Self.tickEvery, repeating: Self.tickEvery)
        timer.setEventHandler { [weak self] in self?.tick() }
        ticker = timer
        timer.resume()
    }

    private func tick() {
        lock.withLock {
            guard ticker != nil else { return }
            showProgress(Date())
        }
    }

    /// No more progress: the command's last words follow.
    private func stopTicking() {
        ticker?.cancel()
        ticker = nil
    }

    private func showProgress(_ now: Date) {
        let interval: TimeInterval =
            switch mode {
            case .live: 0.1
            case .json: 0.5
            case .plain: 5
            case .silent: .infinity
            }
        guard now.timeIntervalSince(lastShown) >= interval else { return }
        lastShown = now
        samples.append((now, received))
        // The rate over the last few seconds: what the connection does now, not on average.
        while let first = samples.first, now.timeIntervalSince(first.at) > 3, samples.count > 2 {
            samples.removeFirst()
        }
        let span = now.timeIntervalSince(samples[0].at)
        let rate = span > 0.2 ? Double(received - samples[0].bytes) / span : 0
        switch mode {
        case .json:
            var line = Line("progress")
            line.received = received
            line.total = total
            line.bytesPerSecond = Int64(rate)
            emit(line)
        case .plain:
            say("  \(progressText(rate: rate, now: now))")
        case .live:
            writeRaw("\r\u{1B}[2K" + TerminalText.sanitized("\(name): \(progressText(rate: rate, now: now))"))
            liveLineOpen = true
        case .silent:
            break
        }
    }

    private func progressText(rate: Double, now: Date) -> String {
        let percent = total > 0 ? Int(Double(received) * 100 / Double(total)) : 100
        var text = "\(ByteCount.format(received)) of \(ByteCount.format(total)) (\(percent)%)"
        let waited = now.timeIntervalSince(lastData)
        if waited >= Self.stall {
            text += ", nothing arriving for \(Self.duration(waited))"
        } else if rate > 0 {
            text += ", \(ByteCount.format(Int64(rate)))/s"
            let left = Double(max(0, total - received)) / rate
            text += ", \(Self.duration(left)) left"
        }
        return text
    }

    package static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }

    private func sayAboveLiveLine(_ text: String, toStandardError: Bool = false) {
        if mode == .live {
            closeLiveLine()
            // Forces the live line to be drawn again on the next chunk.
            lastShown = .distantPast
        }
        if toStandardError { Console.err(text) } else { say(text) }
    }

    private func closeLiveLine() {
        if liveLineOpen {
            writeRaw("\r\u{1B}[2K")
            liveLineOpen = false
        }
    }

    private func say(_ text: String) {
        Console.out(text)
    }

    private func emit(_ line: Line) {
        try? JSONOutput.writeLine(line)
    }

    private func writeRaw(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    }
}
