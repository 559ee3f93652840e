import Foundation
import Logging
import NIOConcurrencyHelpers
import TourModel

/// The tours being served, re-read when their folders change.
///
/// Requests ask for the current snapshot; at most once per `reloadInterval` that costs a `stat` of
/// each tour's files (no reading), and a tour whose files changed is loaded again. A broken edit never
/// takes a tour down: the last good version stays served and the problem is logged, once per distinct
/// problem. `reload()` (SIGHUP) checks at once.
public final class TourCatalog: Sendable {
    enum Source: Sendable, Hashable {
        /// A tour folder named on the command line: broken at start-up is an error.
        case folder(URL)
        /// A folder of tour folders: each sub-folder with a tour.json, as they come and go.
        case parent(URL)
    }

    struct Snapshot: Sendable {
        var tours: [ServedTour] = []
        var byID: [String: ServedTour] = [:]
    }

    private struct State {
        var loaded: [String: ServedTour] = [:]
        var lastProblem: [String: String] = [:]
        var lastCheck: Date = .distantPast
        /// When the last check (or the one under way) began: what it saw is as of then.
        var lastCheckBegan: Date = .distantPast
        var sweeping = false
        var snapshot = Snapshot()
        /// Requests that came while a check ran: they get its result, not the snapshot before it.
        var waiting: [CheckedContinuation<Snapshot, Never>] = []
    }

    let sources: [Source]
    let versions: TourVersionStore
    let reloadInterval: Double
    let logger: Logger
    private let state = NIOLockedValueBox(State())

    public init(paths: [URL], versions: TourVersionStore, reloadInterval: Double, logger: Logger) throws(ServerError) {
        var sources: [Source] = []
        for path in paths {
            let url = path.standardizedFileURL
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw ServerError(.usage, "\(path.path): no such folder")
            }
            guard isDirectory.boolValue else {
                throw ServerError(.usage, "\(path.path): is a file; name a tour folder or a folder of tour folders")
            }
            sources.append(TourFolder.isTourFolder(url) ? .folder(url) : .parent(url))
        }
        self.sources = sources
        self.versions = versions
        self.reloadInterval = reloadInterval
        self.logger = logger
        try sweep(initial: true)
    }

    /// The tours as of now (checking the folders first when the last check is older than the
    /// interval). A request that comes while a check runs waits for it: a client asking a tour's
    /// details, points and manifest at once got some from the tours before a curator's edit and
    /// some from after it.
    func current() async -> Snapshot {
        enum Step { case ready(Snapshot), check, wait }
        let step = state.withLockedValue { s -> Step in
            if s.sweeping { return .wait }
            guard Date().timeIntervalSince(s.lastCheck) >= reloadInterval else { return .ready(s.snapshot) }
            s.sweeping = true
            s.lastCheckBegan = Date()
            return .check
        }
        switch step {
        case .ready(let snapshot):
            return snapshot
        case .check:
            try? sweep(initial: false)
            return state.withLockedValue { $0.snapshot }
        case .wait:
            return await checkUnderWay()
        }
    }

    /// What the check under way finds, once it ends (the snapshot now if it has ended already).
    private func checkUnderWay() async -> Snapshot {
        await withCheckedContinuation { continuation in
            let now = state.withLockedValue { s -> Snapshot? in
                guard s.sweeping else { return s.snapshot }
                s.waiting.append(continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Checks every folder now (SIGHUP); after the one under way, if that began before the signal.
    public func reload() async {
        await checkNow(unlessCheckedSince: Date())
        logger.info("tour folders checked", metadata: ["tours": "\(count)"])
    }

    /// Makes sure the folders were checked after `moment`: a check that began since is enough
    /// (waited for if under way); else one is made now. A media file found changed asks this with
    /// its modification time, so a crowd of requests for it, or a broken edit kept out of the
    /// tours, costs one check, not one each.
    func checkNow(unlessCheckedSince moment: Date) async {
        enum Step { case done, wait, check }
        let step = state.withLockedValue { s -> Step in
            if s.sweeping { return .wait }
            if s.lastCheckBegan >= moment { return .done }
            s.sweeping = true
            s.lastCheckBegan = Date()
            return .check
        }
        switch step {
        case .done:
            return
        case .wait:
            // Wait for that check to end, then look again.
            _ = await checkUnderWay()
            await checkNow(unlessCheckedSince: moment)
        case .check:
            try? sweep(initial: false)
        }
    }

    public var count: Int { state.withLockedValue { $0.snapshot.tours.count } }

    /// The tour folders to serve. A parent folder that is there but cannot be listed now (out of
    /// descriptors under load) keeps the tours it had: listing nothing dropped every tour, and
    /// each media request got 404 until the next check.
    private func folders(previous: [String: ServedTour]) -> [(url: URL, explicit: Bool)] {
        var result: [(URL, Bool)] = []
        for source in sources {
            switch source {
            case .folder(let url):
                result.append((url, true))
            case .parent(let url):
                let children: [URL]
                do {
                    children = try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
                } catch {
                    guard FileManager.default.fileExists(atPath: url.path) else { continue }
                    let prefix = url.standardizedFileURL.path + "/"
                    for key in previous.keys.sorted() where key.hasPrefix(prefix) {
                        result.append((URL(fileURLWithPath: key, isDirectory: true), false))
                    }
                    continue
                }
                for child in children.sorted(by: { $0.lastPathComponent < $1.lastPathComponent })
                where !child.lastPathComponent.hasPrefix(".") && TourFolder.isTourFolder(child) {
                    result.append((child.standardizedFileURL, false))
                }
            }
        }
        return result
    }

    private func sweep(initial: Bool) throws(ServerError) {
        defer {
            let (waiting, snapshot) = state.withLockedValue { s in
                s.sweeping = false
                s.lastCheck = Date()
                defer { s.waiting = [] }
                return (s.waiting, s.snapshot)
            }
            for continuation in waiting { continuation.resume(returning: snapshot) }
        }
        let (previous, problems) = state.withLockedValue { ($0.loaded, $0.lastProblem) }
        var loaded: [String: ServedTour] = [:]
        var newProblems = problems
        let list = folders(previous: previous)
        for (url, explicit) in list {
            let key = url.path
            let old = previous[key]
            if let old, !old.hasChangedOnDisk {
                loaded[key] = old
                continue
            }
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: key, isDirectory: &isDirectory) || !isDirectory.boolValue {
                if old != nil {
                    logger.warning("tour folder is gone; no longer served", metadata: ["folder": "\(key)"])
                }
                continue
            }
            do {
                var tour = try ServedTour.load(from: url)
                for (language, hash) in tour.contentHashes {
                    do {
                        tour.versions[language] = try versions.version(
                            tourID: tour.id, language: language, contentHash: hash)
                    } catch {
                        logger.error(
                            "cannot record the tour's version", metadata: ["folder": "\(key)", "error": "\(error)"])
                        tour.versions[language] = old?.versions[language] ?? 1
                    }
                }
                for path in tour.refused {
                    logger.error(
                        "not served: the file's real path leaves the tour folder (or it is not a regular file)",
                        metadata: ["folder": "\(key)", "file": "\(path)"])
                }
                if old != nil { logger.info("tour reloaded", metadata: ["folder": "\(key)", "tour": "\(tour.id)"]) }
                newProblems[key] = nil
                loaded[key] = tour
            } catch {
                if initial && explicit {
                    throw ServerError(.data, "\(key)/\(error.message)")
                }
                if newProblems[key] != error.message {
                    newProblems[key] = error.message
                    logger.error(
                        old == nil
                            ? "tour folder not served"
                            : "tour folder edit is broken; still serving the last good version",
                        metadata: ["folder": "\(key)", "problem": "\(error.message)"])
                }
                if let old { loaded[key] = old }
            }
        }
        var snapshot = Snapshot()
        for (url, _) in list {
            guard let tour = loaded[url.path] else { continue }
            if let other = snapshot.byID[tour.id] {
                let problem = "tour id \(tour.id) is also used by \(other.folder.root.path)"
                if newProblems[url.path] != problem {
                    newProblems[url.path] = problem
                    logger.error(
                        "tour folder not served", metadata: ["folder": "\(url.path)", "problem": "\(problem)"])
                }
                continue
            }
            snapshot.tours.append(tour)
            snapshot.byID[tour.id] = tour
        }
        state.withLockedValue {
            $0.loaded = loaded
            $0.lastProblem = newProblems
            $0.snapshot = snapshot
        }
    }
}
