import Foundation
import TourModel

/// Everything the walk core must remember to carry a walk across a crash or a reboot
/// (triggering rule 9). The core hands out a copy after every change (`saveProgress`); the live
/// runtime writes it to the state folder, and `WalkCore(tour:policy:resuming:)` picks it up.
///
/// The fix filter and the entry confirmation streaks are deliberately not saved: after a restart
/// the old fixes are stale, and re-confirming an entry costs two seconds.
public struct WalkProgress: Sendable, Hashable, Codable {
    public enum PointStatus: String, Sendable, Hashable, Codable {
        /// Not triggered yet.
        case pending
        /// Triggered, waiting for the narration before it to end.
        case queued
        case playing
        /// Heard to the end, skipped by the walker, or announced (no or broken audio).
        case played
        /// Passed over under `MissedPoints.skip`.
        case missed
    }

    public struct PointRecord: Sendable, Hashable, Codable {
        public var id: String
        public var status: PointStatus
        public var triggeredAt: Date?
        public var triggerType: TriggerType?
        /// Where the point was when the walk was saved: a point the tour names anew at the same
        /// place is the same point renamed (`fitted`). Absent in files from before it was kept.
        public var place: Coordinate?

        public init(
            id: String, status: PointStatus = .pending, triggeredAt: Date? = nil, triggerType: TriggerType? = nil,
            place: Coordinate? = nil
        ) {
            self.id = id
            self.status = status
            self.triggeredAt = triggeredAt
            self.triggerType = triggerType
            self.place = place
        }

        /// Triggered by GPS, catch-up or hand, whether or not its narration has ended.
        public var wasTriggered: Bool { status == .queued || status == .playing || status == .played }
    }

    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The last point was heard: the next walk of the tour starts again.
        case completed
        /// The walker quit (a key, Ctrl-C, a signal): the walk resumes where it was.
        case abandoned
    }

    /// The narration the walker hears now; `isReplay` for previous/replay, which change no progress.
    public struct Playing: Sendable, Hashable, Codable {
        public var pointID: String
        public var isReplay: Bool

        public init(pointID: String, isReplay: Bool) {
            self.pointID = pointID
            self.isReplay = isReplay
        }
    }

    public var tourID: String
    public var language: String
    public var startedAt: Date?
    /// One per point, in the tour's order.
    public var points: [PointRecord]
    /// Index of the first point neither triggered nor missed: where GPS triggering looks next.
    public var nextIndex: Int
    /// Point ids triggered and waiting, in order.
    public var queue: [String]
    public var playing: Playing?
    /// The point `replay` and `previous` refer to when nothing plays.
    public var lastHeard: String?
    public var isPaused: Bool
    public var outcome: Outcome?
    public var endedAt: Date?

    /// `places`: each point's place, in the same order (kept to know a renamed point).
    public init(tourID: String, language: String, pointIDs: [String], places: [Coordinate]? = nil) {
        self.tourID = tourID
        self.language = language
        self.startedAt = nil
        self.points = pointIDs.enumerated().map { i, id in
            PointRecord(id: id, place: places.flatMap { $0.indices.contains(i) ? $0[i] : nil })
        }
        self.nextIndex = 0
        self.queue = []
        self.playing = nil
        self.lastHeard = nil
        self.isPaused = false
        self.outcome = nil
        self.endedAt = nil
    }

    public var pointsVisited: Int { points.count { $0.wasTriggered } }

    /// What is wrong with this progress, or nil when the walk core can continue from it.
    ///
    /// A progress file is data like any other: a crash mid-save cannot corrupt it (saves are
    /// atomic), but a hand edit, a disk error or another program can. Every rule here is one the
    /// core keeps for every progress it hands out, so a file that breaks one was not written by a
    /// walk, and resuming from it could index past the tour or play a point that is not in it.
    public var problem: String? {
        guard (0...points.count).contains(nextIndex) else {
            return "nextIndex \(nextIndex) is outside 0...\(points.count)"
        }
        var index: [String: Int] = [:]
        for (i, point) in points.enumerated() {
            if let first = index[point.id] { return "point \"\(point.id)\" is listed twice (\(first) and \(i))" }
            index[point.id] = i
            // Triggering moves forward only: what lies before nextIndex was triggered or missed,
            // nothing after it was.
            if i < nextIndex, point.status == .pending {
                return "point \(i) is pending, but the walk is past it (nextIndex \(nextIndex))"
            }
            if i >= nextIndex, point.status != .pending {
                return
                    "point \(i) is \(point.status.rawValue), but the walk has not reached it (nextIndex \(nextIndex))"
            }
            if let date = point.triggeredAt, !Self.isPlausible(date) {
                return "point \(i) has an impossible trigger time"
            }
            if let place = point.place, !(abs(place.latitude) <= 90 && abs(place.longitude) <= 180) {
                return "point \(i)'s place is not on earth"
            }
        }
        for (name, date) in [("startedAt", startedAt), ("endedAt", endedAt)] {
            if let date, !Self.isPlausible(date) { return "\(name) is an impossible time" }
        }
        var queued: Set<String> = []
        for id in queue {
            guard let i = index[id] else { return "the queue names an unknown point \"\(id)\"" }
            guard points[i].wasTriggered else { return "the queue holds point \(i), which was never triggered" }
            guard queued.insert(id).inserted else { return "the queue holds point \(i) twice" }
        }
        if let playing {
            guard let i = index[playing.pointID] else { return "an unknown point \"\(playing.pointID)\" is playing" }
            // A first hearing is `playing`; a replay (previous, replay) is of a point already heard.
            let expected: PointStatus = playing.isReplay ? .played : .playing
            guard points[i].status == expected else {
                return
                    "point \(i) is playing\(playing.isReplay ? " again" : ""), but its status is \(points[i].status.rawValue)"
            }
            guard !queued.contains(playing.pointID) else { return "point \(i) is playing and queued at once" }
        }
        for (i, point) in points.enumerated() {
            switch point.status {
            case .queued where !queued.contains(point.id):
                return "point \(i) is queued, but not in the queue"
            // A walk that ended (quit) stopped its narration mid-way: that point stays `playing`.
            case .playing where outcome == nil && !queued.contains(point.id) && playing?.pointID != point.id:
                return "point \(i) is playing, but nothing plays it"
            default: break
            }
        }
        if let lastHeard {
            guard let i = index[lastHeard] else { return "the last point heard, \"\(lastHeard)\", is unknown" }
            // `replay` plays it again as a replay, which only a point already heard can be.
            guard points[i].status == .played else {
                return "point \(i) is the last heard, but its status is \(points[i].status.rawValue)"
            }
        }
        return nil
    }

    /// Within a few thousand years of 1970: what any clock a walk runs on can say, and far enough
    /// from the limits that durations computed from it stay ordinary numbers.
    static func isPlausible(_ date: Date) -> Bool {
        abs(date.timeIntervalSince1970) < 1e11
    }

    /// 0-based index of the furthest point triggered, -1 when none was.
    public var lastPointIndex: Int { points.lastIndex { $0.wasTriggered } ?? -1 }

    private enum CodingKeys: String, CodingKey {
        case tourID, language, startedAt, points, nextIndex, queue, playing, lastHeard, isPaused, outcome, endedAt
    }

    /// Decoding checks the whole progress (`problem`, thrown as a `WalkError`): a file that
    /// decodes is one the core can resume from, whoever reads it.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tourID = try c.decode(String.self, forKey: .tourID)
        language = try c.decode(String.self, forKey: .language)
        startedAt = try c.decodeIfPresent(Date.self, forKey: .startedAt)
        points = try c.decode([PointRecord].self, forKey: .points)
        nextIndex = try c.decode(JSONInteger.self, forKey: .nextIndex).value
        queue = try c.decode([String].self, forKey: .queue)
        playing = try c.decodeIfPresent(Playing.self, forKey: .playing)
        lastHeard = try c.decodeIfPresent(String.self, forKey: .lastHeard)
        isPaused = try c.decode(Bool.self, forKey: .isPaused)
        outcome = try c.decodeIfPresent(Outcome.self, forKey: .outcome)
        endedAt = try c.decodeIfPresent(Date.self, forKey: .endedAt)
        if let problem { throw WalkError(problem) }
    }

    /// The progress file's bytes, as `ProgressStore` writes them (dates in seconds since 1970, so
    /// they come back within a microsecond, not to the bit).
    public func fileData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        return try encoder.encode(self)
    }

    /// Reads a progress file's bytes; the error says what is wrong (not JSON, a field missing, or
    /// a `problem`).
    public static func decode(fileData data: Data) throws(WalkError) -> WalkProgress {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        do {
            return try decoder.decode(WalkProgress.self, from: data)
        } catch let problem as WalkError {
            throw problem
        } catch let DecodingError.keyNotFound(key, _) {
            throw WalkError("\(key.stringValue) is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw WalkError("\(JSONPath.render(context.codingPath)) has the wrong type")
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw WalkError("\(JSONPath.render(context.codingPath)) is not valid")
        } catch {
            throw WalkError("not valid JSON")
        }
    }
}

extension WalkProgress {
    /// How a saved walk was fitted to a tour whose points changed since it was saved (an update,
    /// a curator's edit): what the walker is told when the walk resumes.
    public struct PointChanges: Sendable, Hashable {
        /// Points the tour has now and the walk had not (ids, in the tour's order).
        public var added: [String] = []
        /// Points the walk had and the tour no longer has (ids, in the walk's order).
        public var removed: [String] = []
        /// Points the tour names anew at the place of one the walk had (old id, new id, in the
        /// walk's order): the same point, keeping what the walk knew of it.
        public var renamed: [Rename] = []

        /// A point's old id and the one the tour gives it now.
        public struct Rename: Sendable, Hashable {
            public var from: String
            public var to: String
        }

        /// Points not heard that now lie behind the walker's place (new ones, or moved there):
        /// marked passed over, as `--missed skip` would (ids, in the tour's order).
        public var passedOver: [String] = []
        /// Points heard (or passed over) that now lie ahead of the walker's place: they can
        /// trigger again (ids, in the tour's order).
        public var ahead: [String] = []

        public var isEmpty: Bool {
            added.isEmpty && removed.isEmpty && renamed.isEmpty && passedOver.isEmpty && ahead.isEmpty
        }
    }

    /// Within this distance, a point the tour names anew stands where one the walk had stood:
    /// the same point renamed. Far under any trigger radius, over a re-typed coordinate's rounding.
    public static let samePlace = 1.0

    /// This progress fitted to a tour with these points, in order, keeping every point by its id.
    ///
    /// Triggering moves forward only (`problem`), so the walker's place must be one index of the
    /// new list: before it every point heard or passed over, after it none. The place chosen
    /// changes the fewest points: those not heard behind it are passed over, those heard ahead of
    /// it can trigger again. On a tie the later place wins: the walker stands past the points heard,
    /// and a point re-armed behind them would hold up the walk. A point's record (status, time,
    /// type) travels with the point; the queue, the playing point and the last heard keep what is
    /// left of them.
    ///
    /// `places` (the new points' places, in order): a point is known first by where it stands. A
    /// point saved with its place and a point of the tour within `samePlace` of it are one point,
    /// whatever their ids (renamed, ids swapped, or numbered again after a point was inserted),
    /// the same id first, then the nearest, each paired once. The points left are paired by id
    /// (a point moved, or saved without its place). Without places, ids are all there is.
    public func fitted(to pointIDs: [String], places: [Coordinate]? = nil) -> (
        progress: WalkProgress, changes: PointChanges
    ) {
        let pairs = Self.pairs(of: points, with: pointIDs, places: places)
        var changes = PointChanges()
        // Old id → new id, for every point of the walk still in the tour.
        var renames: [String: String] = [:]
        for pair in pairs { if let old = pair.old { renames[points[old].id] = pointIDs[pair.new] } }
        let paired = Set(pairs.compactMap(\.old))
        changes.renamed = points.indices.compactMap { i in
            guard let new = renames[points[i].id], new != points[i].id else { return nil }
            return PointChanges.Rename(from: points[i].id, to: new)
        }
        changes.removed = points.indices.filter { !paired.contains($0) }.map { points[$0].id }
        changes.added = pairs.filter { $0.old == nil }.map { pointIDs[$0.new] }
        var records = pairs.map { pair in
            pair.old.map { old in
                var record = points[old]
                record.id = pointIDs[pair.new]
                return record
            } ?? PointRecord(id: pointIDs[pair.new])
        }

        // cost(place) = points not heard before it + points heard from it on.
        let reached = records.map { $0.status != .pending }
        var cost = reached.count { $0 }  // place 0: every point reached is ahead
        var best = (place: 0, cost: cost)
        for (i, wasReached) in reached.enumerated() {
            cost += wasReached ? -1 : 1
            if cost <= best.cost { best = (i + 1, cost) }
        }
        var fitted = self
        for i in records.indices where i < best.place && !reached[i] {
            records[i].status = .missed
            changes.passedOver.append(records[i].id)
        }
        for i in records.indices where i >= best.place && reached[i] {
            records[i] = PointRecord(id: records[i].id)
            changes.ahead.append(records[i].id)
        }
        fitted.points = records
        fitted.nextIndex = best.place
        if let places, places.count == records.count {
            for i in records.indices { records[i].place = places[i] }
            fitted.points = records
        }
        let status = Dictionary(uniqueKeysWithValues: records.map { ($0.id, $0.status) })
        // Queued points, and a point `previous` (or a restart while paused) sent back to the
        // queue, `playing` or `played`: whatever of them is still triggered (renamed ones by
        // their new names).
        fitted.queue = queue.compactMap { renames[$0] }.filter { id in
            status[id].map { PointRecord(id: id, status: $0).wasTriggered } ?? false
        }
        fitted.playing = playing.flatMap { playing in
            guard let named = renames[playing.pointID] else { return nil }
            var renamed = playing
            renamed.pointID = named
            return status[named] == (playing.isReplay ? .played : .playing) ? renamed : nil
        }
        fitted.lastHeard = lastHeard.flatMap { renames[$0] }.flatMap { status[$0] == .played ? $0 : nil }
        return (fitted, changes)
    }

    /// For each of the tour's points (in order), the index of the walk's point it is, or nil for
    /// a point new to the walk (see `fitted`).
    static func pairs(of saved: [PointRecord], with pointIDs: [String], places: [Coordinate]?) -> [(
        new: Int, old: Int?
    )] {
        var old: [Int?] = Array(repeating: nil, count: pointIDs.count)
        var taken = Set<Int>()
        func pair(_ new: Int, _ was: Int) {
            old[new] = was
            taken.insert(was)
        }
        if let places, places.count == pointIDs.count {
            let distance = { (was: Int, new: Int) in saved[was].place.map { $0.distance(to: places[new]) } }
            let index = Dictionary(pointIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
            // Where it stood, under the same id.
            for (was, record) in saved.enumerated() {
                guard let new = index[record.id], old[new] == nil,
                    let d = distance(was, new), d <= samePlace
                else { continue }
                pair(new, was)
            }
            // Where it stood, under another id: the nearest point still unpaired.
            for was in saved.indices where !taken.contains(was) {
                let near = pointIDs.indices.compactMap { new -> (new: Int, d: Double)? in
                    guard old[new] == nil, let d = distance(was, new), d <= samePlace else { return nil }
                    return (new, d)
                }
                if let nearest = near.min(by: { $0.d < $1.d }) { pair(nearest.new, was) }
            }
        }
        // The rest by id: a point moved, or saved without its place.
        let unpaired = Dictionary(
            saved.indices.filter { !taken.contains($0) }.map { (saved[$0].id, $0) }, uniquingKeysWith: { a, _ in a })
        for new in pointIDs.indices where old[new] == nil {
            if let was = unpaired[pointIDs[new]], !taken.contains(was) { pair(new, was) }
        }
        return pointIDs.indices.map { ($0, old[$0]) }
    }
}
