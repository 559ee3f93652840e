import FileAccess
import Foundation
import Playback
import Positioning
import TourModel
import Walk
import WalkRuntime

/// `walkscape lint`: what a curator must fix (errors) or should know (warnings) before publishing.
///
/// The loader stops at the first broken thing; lint goes on and lists everything it can, so one
/// run gives the whole to-do list. Media is judged by its bytes (`MediaSniffer`) and its decoded
/// length (`AudioProbe`), never by its name.
public struct TourLint: Sendable {
    /// Walking pace for "is there time to hear this before the next point?" (m/s).
    public var walkingSpeed = 1.3
    /// Radii below this trigger late or not at all under ordinary GPS error (metres).
    public var smallestRadius = 20.0
    /// Radii above this fire from the next street over (metres).
    public var largestRadius = 150.0
    /// A point further than this (plus its radius) from the route is probably misplaced (metres).
    public var maxOffRoute = 50.0
    /// A drawn route with no point within this many metres of it is of another place (an error).
    static let routeElsewhere = 1000.0
    /// A narration this far (LU) from its language's median loudness is named: levelling brings it
    /// to the target, but only as far as its peaks allow, and the curator should know.
    public var loudnessSpread = 6.0
    /// The level narrations play at (the user's `loudness`): a narration that levelling cannot
    /// bring within `loudnessShortfall` of it is named. `.off`: not checked.
    public var loudnessTarget = LoudnessTarget.standard
    /// LU under the target from which a narration is named as staying quiet: as far as a narration
    /// from its language's median is named (`loudnessSpread`). The demo's espeak-ng narrations,
    /// whose clicks reach -0.3 dBTP, stay 1.6-3.8 LU under -16 LUFS.
    public var loudnessShortfall = 6.0
    /// A narration that begins with this much silence (seconds) is named: a walker who reaches the
    /// point hears nothing for that long and may walk on.
    public var longestLeadIn = 2.0
    /// A narration that ends with this much silence (seconds) is named: a point reached meanwhile
    /// waits behind it.
    public var longestTail = 5.0
    /// Whether one audio file used in several languages is reported in each: an installed tour's
    /// languages share one stored file for identical bytes that the curator keeps as two.
    public var sharedAudioPerLanguage = false
    /// Measures narrations' loudness (docs/loudness.md); the command line passes one that reads the
    /// catalog and the cache. Files it leaves out are not judged.
    public var measureLoudness: @Sendable ([URL]) -> [URL: Loudness] = { urls in
        var found: [URL: Loudness] = [:]
        for url in urls { found[url] = try? LoudnessMeter.measure(url) }
        return found
    }

    public init() {}

    public struct Result: Sendable, Hashable, Codable {
        public var findings: [LintFinding]

        public init(findings: [LintFinding]) {
            self.findings = findings
        }
        public var errors: Int { findings.count { $0.severity == .error } }
        public var warnings: Int { findings.count { $0.severity == .warning } }

        /// The findings as lines for people, in order, with at most `limit` of any one check:
        /// past that one line counts the rest (a dense tour would otherwise print thousands of
        /// near-identical lines); `whereTheRestAre` says where the rest can be seen.
        public func lines(limitPerCheck limit: Int = 20, whereTheRestAre: String? = nil) -> [String] {
            var shown: [String: Int] = [:]
            var total: [String: Int] = [:]
            for finding in findings { total[finding.check, default: 0] += 1 }
            var lines: [String] = []
            for finding in findings {
                let count = shown[finding.check, default: 0]
                shown[finding.check] = count + 1
                if count < limit {
                    lines.append(finding.description)
                } else if count == limit {
                    let rest = total[finding.check, default: 0] - limit
                    lines.append(
                        "\(finding.severity.rawValue): \(rest) more like these [\(finding.check)]"
                            + (whereTheRestAre.map { " (\($0))" } ?? ""))
                }
            }
            return lines
        }
    }

    public func lint(folder root: URL) -> Result {
        let folder: TourFolder
        do {
            folder = try TourFolder.load(from: root)
        } catch {
            var findings = [
                LintFinding(
                    .error, "tour-folder", error.file,
                    error.field.isEmpty ? error.reason : "\(error.field): \(error.reason)")
            ]
            // The loader's own problem is listed once, in its words.
            let loaderLine = "\(error.field): \(error.reason)"
            findings += rawChecks(root: root).filter { "\($0.location).\($0.message)" != loaderLine }
            return Result(findings: findings)
        }
        return Result(findings: lint(folder))
    }

    public func lint(_ tour: TourFolder) -> [LintFinding] {
        var findings: [LintFinding] = []
        let languages = tour.languages
        let points = tour.points
        func name(_ i: Int) -> String {
            let p = points[i]
            let title = p.content[tour.defaultLanguage]?.title ?? p.content.values.first?.title ?? ""
            return "point \(p.order) (\(title))"
        }

        // Languages: every point in every language, with narration.
        for (i, p) in points.enumerated() {
            for lang in languages {
                guard let content = p.content[lang] else {
                    findings.append(
                        .init(
                            .warning, "missing-language", name(i),
                            "no content in '\(lang)': walkers in \(lang) get the \(tour.defaultLanguage) title and no narration"
                        ))
                    continue
                }
                if content.audio == nil {
                    findings.append(
                        .init(.warning, "no-audio", name(i), "no narration in '\(lang)': the point is only announced"))
                }
            }
        }
        for lang in languages where tour.languageInfo[lang]?.completionMessage == nil {
            findings.append(
                .init(
                    .warning, "no-completion-message", "languages.\(lang)",
                    "no completionMessage: walkers in \(lang) finish without a word"))
        }

        // Media: audio in a format walkscape plays (by its bytes, not its name) that decodes; subtitles that parse and fit the narration. A file used by
        // many points is looked at once.
        var durations: [String: [Int: Double]] = [:]  // language → point index → seconds
        var sniffed: [URL: MediaKind] = [:]
        var probed: [URL: Swift.Result<AudioInfo, PlaybackError>] = [:]
        var narrations: [String: [(point: Int, audio: URL)]] = [:]
        for (i, p) in points.enumerated() {
            for lang in languages {
                guard let content = p.content[lang] else { continue }
                if let audio = content.audio {
                    let rel = relative(audio, in: tour.root)
                    let kind = sniffed[audio] ?? MediaSniffer.sniff(audio)
                    sniffed[audio] = kind
                    if !AudioDecoders.playableKinds.contains(kind) {
                        findings.append(
                            .init(
                                .error, "audio-unplayable", rel,
                                "\(name(i)) in '\(lang)': not audio walkscape plays (\(kind.looksLike))"))
                    } else {
                        let probe =
                            probed[audio]
                            ?? Swift.Result(catching: { () throws(PlaybackError) -> AudioInfo in
                                try AudioProbe.inspect(audio)
                            })
                        probed[audio] = probe
                        do throws(PlaybackError) {
                            let info = try probe.get()
                            durations[lang, default: [:]][i] = info.duration
                            narrations[lang, default: []].append((i, audio))
                            if let subs = content.subtitles {
                                findings += subtitleChecks(subs, audioSeconds: info.duration, in: tour.root)
                            }
                        } catch {
                            findings.append(
                                .init(.error, "audio-unreadable", rel, "\(name(i)) in '\(lang)': \(error.reason)"))
                        }
                    }
                } else if let subs = content.subtitles {
                    findings += subtitleChecks(subs, audioSeconds: nil, in: tour.root)
                }
                if let image = content.image, let problem = Self.imageProblem(image) {
                    findings.append(.init(.warning, "image-unreadable", relative(image, in: tour.root), problem))
                }
            }
        }
        if let image = tour.image, let problem = Self.imageProblem(image) {
            findings.append(.init(.warning, "image-unreadable", relative(image, in: tour.root), problem))
        }
        findings += loudnessChecks(narrations, root: tour.root, name: name)

        // Radii.
        for (i, p) in points.enumerated() {
            let r = p.triggerRadiusMeters
            if r < smallestRadius {
                findings.append(
                    .init(
                        .warning, "radius-too-small", name(i),
                        "radius \(Self.metres(r)) is below typical GPS error (\(Self.metres(smallestRadius))): walkers may pass without triggering it"
                    ))
            } else if r > largestRadius {
                findings.append(
                    .init(
                        .warning, "radius-too-large", name(i),
                        "radius \(Self.metres(r)) is large enough to trigger from a parallel street (over \(Self.metres(largestRadius)))"
                    ))
            }
        }
        // Radii that overlap trigger at once only where the walk's route brings the points
        // together (rule 10): a later point is armed when progress reaches its stretch, so a loop's
        // welcome and finale at its meeting point, a loop apart, do not (`route-passes-again`
        // tells how that point plays).
        let overlaps = RadiusOverlaps(coordinates: points.map(\.coordinate), radii: points.map(\.triggerRadiusMeters))
        // The route the walk follows (the drawn one when it fits the points), made once for the
        // overlaps, the order along it and the passes.
        let walkRoute = TourRoute(route: tour.route, points: Self.playablePoints(points))
        let stations = walkRoute.stations
        for (i, later) in overlaps.later.enumerated() {
            let together = later.filter {
                stations.count != points.count
                    || stations[$0.index] - stations[i]
                        <= points[i].triggerRadiusMeters + points[$0.index].triggerRadiusMeters + WalkCore.stretchSlack
            }
            if !together.isEmpty { findings.append(overlapFinding(i, together, points: points, name: name)) }
        }

        // The tour's own recorded walks: every point should trigger by GPS on them.
        for trace in tour.traces {
            findings += traceChecks(trace, tour: tour, name: name)
        }

        // Order along the route, and the walk between points.
        // The drawn route itself (no points to fit), and the route the walk follows with them.
        let route = tour.route.count > 1 ? TourRoute(route: tour.route, points: []) : nil
        var along: [Double] = []
        if let route {
            let nearest = points.map { route.nearest(to: $0.coordinate, from: 0, to: route.length) }
            along = nearest.map(\.along)
            if let closest = nearest.map(\.offset).min(), closest > Self.routeElsewhere {
                // Not one point near it: the route is of another place, or its numbers swapped.
                let swapped = tour.route.map { Coordinate(latitude: $0.longitude, longitude: $0.latitude) }
                let swappedRoute = TourRoute(route: swapped, points: [])
                let fitsSwapped = points.allSatisfy { p in
                    swappedRoute.nearest(to: p.coordinate, from: 0, to: swappedRoute.length).offset
                        <= p.triggerRadiusMeters + maxOffRoute
                }
                findings.append(
                    .init(
                        .error, "route-elsewhere", "route",
                        fitsSwapped
                            ? "its latitudes and longitudes are swapped: swapped back, it runs past every point"
                            : "it runs \(Int((closest / 1000).rounded())) km from the nearest point: it is not this tour's route"
                    ))
            } else {
                for (i, p) in points.enumerated() where nearest[i].offset > p.triggerRadiusMeters + maxOffRoute {
                    findings.append(
                        .init(.warning, "off-route", name(i), "\(Self.metres(nearest[i].offset)) from the route"))
                }
                for stray in RouteStrays.find(
                    route: tour.route, points: points.map { ($0.coordinate, $0.triggerRadiusMeters) })
                {
                    let c = tour.route[stray.index]
                    let distance =
                        stray.metres >= 10_000
                        ? "\(Int((stray.metres / 1000).rounded())) km" : Self.metres(stray.metres)
                    let vertex =
                        "its vertex \(stray.index + 1) (\(String(format: "%.6f,%.6f", c.latitude, c.longitude)))"
                    let how =
                        switch stray.shape {
                        case .spike: "sticks out \(distance) from the route, which comes straight back"
                        case .tail: "lies \(distance) from its one neighbour, far out from the rest of the route"
                        }
                    findings.append(
                        .init(
                            .warning, "route-stray", "route",
                            "\(vertex) \(how): a typo? (map leaves it out of its frame)"))
                }
            }
            let followed = walkRoute
            for i in points.indices.dropFirst() where along[i] < along[i - 1] {
                // A loop's finale at its meeting point projects to the route's start, yet the route
                // comes back to it after the point before: that is the route's order, not against it.
                // That is another pass through its radius, after the point before it.
                let passes = route.passes(near: points[i].coordinate, radius: points[i].triggerRadiusMeters)
                let nearestPass = passes.first { along[i] >= $0.from - 0.5 && along[i] <= $0.to + 0.5 }
                let laterPass =
                    followed.source == .drawn
                    && passes.contains {
                        $0.from > (nearestPass?.to ?? along[i]) && $0.nearest >= followed.stations[i - 1]
                    }
                if laterPass { continue }
                findings.append(
                    .init(
                        .error, "order-against-route", name(i),
                        "comes before \(name(i - 1)) along the route (\(Self.metres(along[i])) vs \(Self.metres(along[i - 1])) from its start): walkers reach them in the other order"
                    ))
            }
        }
        findings += passFindings(points, route: walkRoute, name: name)
        if route == nil {
            // No route to compare with: flag neighbours whose swap would shorten the walk a lot,
            // the usual sign of two orders typed the wrong way round.
            for i in points.indices.dropLast() where i > 0 || points.count > 2 {
                let before = i > 0 ? points[i - 1].coordinate : nil
                let after = i + 2 < points.count ? points[i + 2].coordinate : nil
                let a = points[i].coordinate, b = points[i + 1].coordinate
                let current =
                    (before.map { $0.distance(to: a) } ?? 0) + a.distance(to: b)
                    + (after.map { b.distance(to: $0) } ?? 0)
                let swapped =
                    (before.map { $0.distance(to: b) } ?? 0) + b.distance(to: a)
                    + (after.map { a.distance(to: $0) } ?? 0)
                if swapped < 0.7 * current {
                    findings.append(
                        .init(
                            .warning, "order-looks-swapped", "\(name(i)) and \(name(i + 1))",
                            "walking them in the other order would be \(Self.metres(current - swapped)) shorter (\(Self.metres(swapped)) instead of \(Self.metres(current))): are their orders swapped? (add a route to check the order against it)"
                        ))
                }
            }
        }
        for i in points.indices.dropLast() {
            let a = points[i], b = points[i + 1]
            var distance = a.coordinate.distance(to: b.coordinate)
            if !along.isEmpty, along[i + 1] > along[i] { distance = max(distance, along[i + 1] - along[i]) }
            // Trigger to trigger: entered at the near edge of one, then the near edge of the next.
            let walk = max(0, distance + a.triggerRadiusMeters - b.triggerRadiusMeters)
            let seconds = walk / walkingSpeed
            for lang in languages {
                guard let d = durations[lang]?[i], d > seconds else { continue }
                findings.append(
                    .init(
                        .warning, "audio-longer-than-walk", name(i),
                        "narration in '\(lang)' lasts \(WalkTime.duration(d)) but the walk to \(name(i + 1)) takes about \(WalkTime.duration(seconds)) at \(walkingSpeed) m/s: the queue builds up"
                    ))
            }
        }
        // Errors first; otherwise in the order checked (by point), which reads like the tour.
        return findings.enumerated()
            .sorted {
                ($0.element.severity == .error ? 0 : 1, $0.offset) < ($1.element.severity == .error ? 0 : 1, $1.offset)
            }
            .map(\.element)
    }

    /// Replays one of the tour's traces (as `preview --fast` does, without audio) and reports the
    /// points that walk does not trigger, with how close it came: a radius to widen or move.
    /// Silent and clipped narrations, those with long silence at either end or on one channel of
    /// two, and those far from their language's median loudness.
    func loudnessChecks(
        _ narrations: [String: [(point: Int, audio: URL)]], root: URL, name: (Int) -> String
    ) -> [LintFinding] {
        let measured = measureLoudness(Array(Set(narrations.values.flatMap { $0.map(\.audio) })))
        var findings: [LintFinding] = []
        var reported = Set<String>()
        for lang in narrations.keys.sorted() {
            let list = narrations[lang] ?? []
            let levels = list.compactMap { measured[$0.audio]?.integrated }.sorted()
            let median =
                levels.isEmpty
                ? nil
                : levels.count % 2 == 1
                    ? levels[levels.count / 2] : (levels[levels.count / 2 - 1] + levels[levels.count / 2]) / 2
            for (i, audio) in list {
                guard let loudness = measured[audio] else { continue }
                let rel = relative(audio, in: root)
                /// A finding about this narration, named as the point and language it plays in.
                func say(_ severity: LintFinding.Severity, _ check: String, _ text: String) {
                    findings.append(.init(severity, check, rel, "\(name(i)) in '\(lang)': \(text)", language: lang))
                }
                let key = sharedAudioPerLanguage ? "\(lang)\u{0}\(audio.path)" : audio.path
                if reported.insert(key).inserted {
                    if let damage = loudness.damage { say(.error, "audio-damaged", damage) }
                    if loudness.isSilent {
                        say(.error, "audio-silent", "the narration is silent")
                    } else if loudness.isTooShortToMeasure {
                        say(
                            .warning, "audio-too-short",
                            "the narration lasts \(Int((loudness.seconds * 1000).rounded())) ms, too short to measure its loudness (400 ms at least): it plays at its own level"
                        )
                    } else if loudness.isClipped {
                        say(
                            .warning, "audio-clipped",
                            "clipped in \(loudness.clippedRuns) place\(loudness.clippedRuns == 1 ? "" : "s") (samples at full scale)"
                        )
                    }
                    if let channel = loudness.onlyChannel {
                        let (sounds, silent) = channel == 0 ? ("left", "right") : ("right", "left")
                        say(
                            .warning, "audio-one-channel",
                            "the narration is on its \(sounds) channel alone, the \(silent) silent: it plays on both, as mono"
                        )
                    }
                    if let lead = loudness.leadingSilence, lead >= longestLeadIn {
                        say(
                            .warning, "audio-leading-silence",
                            "the narration begins with \(String(format: "%.1f", lead)) s of silence: a walker who reaches the point hears nothing for that long"
                        )
                    }
                    if let tail = loudness.trailingSilence, tail >= longestTail {
                        say(
                            .warning, "audio-trailing-silence",
                            "the narration ends with \(String(format: "%.1f", tail)) s of silence: a point reached meanwhile waits behind it"
                        )
                    }
                    if let quiet = staysQuiet(loudness, audio: audio) { say(.warning, "loudness-unreachable", quiet) }
                }
                guard let median, let level = loudness.integrated, abs(level - median) > loudnessSpread else {
                    continue
                }
                let lu = abs(level - median)
                say(
                    .warning, "loudness-outlier",
                    "\(loudness.summary), \(String(format: "%.1f", lu)) LU \(level < median ? "quieter" : "louder") than the language's median (\(String(format: "%.1f", median)) LUFS)"
                )
            }
        }
        return findings
    }

    /// Why a narration plays more than `loudnessShortfall` under the target after levelling, if
    /// it does: levelling raises at most 30 dB, and never past −1 dBTP (a mono narration's peaks
    /// leave 3 dB more room, so its channels are looked at only when that could matter).
    func staysQuiet(_ loudness: Loudness, audio: URL) -> String? {
        guard case .lufs(let target) = loudnessTarget, let level = loudness.integrated else { return nil }
        var gain = AudioQueue.gainDB(loudnessTarget, for: loudness, channels: 2)
        if target - (level + gain) > loudnessShortfall, let format = try? AudioDecoders.open(audio).format {
            gain = AudioQueue.gainDB(loudnessTarget, for: loudness, channels: format.channels)
        }
        let plays = level + gain
        guard target - plays > loudnessShortfall else { return nil }
        let why =
            gain >= 29.99
            ? "levelling raises a narration at most 30 dB"
            : "its peaks hold it at -1 dBTP"
        return
            "\(loudness.summary): it plays at \(Loudness.format(plays)) LUFS, \(String(format: "%.1f", target - plays)) LU under the walk's \(loudnessTarget) (\(why))"
    }

    private func traceChecks(_ url: URL, tour: TourFolder, name: (Int) -> String) -> [LintFinding] {
        let rel = relative(url, in: tour.root)
        let file: TraceFile
        do { file = try TraceFile(url: url) } catch { return [.init(.error, "trace-unreadable", rel, error.message)] }
        guard let playable = try? tour.playable(language: nil) else { return [] }
        // Narration lengths do not change which points trigger; skip decoding them here.
        let report = WalkSimulation(tour: playable, narrations: [:]).run(fixes: file.fixes())
        if report.summary.acceptedFixes == 0 {
            return [.init(.warning, "trace-without-fixes", rel, "no usable position in this trace")]
        }
        // How close the walk came, measured to the points it missed only (a second pass over the
        // fixes must not cost fixes x points on a large tour).
        let missed = report.points.indices.filter { report.points[$0].trigger?.type != .gps }
        guard !missed.isEmpty else { return [] }
        var closest = [Double](repeating: .infinity, count: playable.points.count)
        var filter = FixFilter(configuration: WalkPolicy().filterConfiguration)
        for fix in file.fixes() where filter.evaluate(fix) == .accepted || !filter.released.isEmpty {
            for i in missed {
                let p = playable.points[i]
                closest[i] = min(
                    closest[i], WalkCore.distance(from: fix.coordinate, to: p.coordinate, within: p.triggerRadiusMeters)
                )
            }
        }
        return missed.map { i in
            let radius = playable.points[i].triggerRadiusMeters
            return LintFinding(
                .warning, "trace-misses-point", rel,
                "\(name(i)) does not trigger on this walk: the closest fix is \(WalkTime.distance(closest[i])) from it (radius \(Self.metres(radius)))"
            )
        }
    }

    /// One line per point for its overlapping later neighbours: a pair reads as before; a point
    /// in a crowd lists the first few and counts the rest, so a dense tour stays readable.
    /// The largest tour (points) whose straight-line route is checked for repeated passes: each
    /// point is compared with every segment.
    public var maxPointsForPassCheck = 2_000

    static func playablePoints(_ points: [TourFolder.Point]) -> [PlayablePoint] {
        points.map {
            PlayablePoint(
                id: $0.id, order: $0.order, coordinate: $0.coordinate,
                triggerRadiusMeters: $0.triggerRadiusMeters, title: "")
        }
    }

    /// Points whose radius the route passes through more than once (a loop's meeting point, a
    /// crossing, an out-and-back street), and how the walk treats them (rule 10): the point plays
    /// on the pass that comes after the point before it; passing through on another pass fires
    /// nothing. Also a drawn route the walk cannot follow.
    func passFindings(_ points: [TourFolder.Point], route: TourRoute, name: (Int) -> String) -> [LintFinding] {
        guard !points.isEmpty else { return [] }
        var findings: [LintFinding] = []
        if let why = route.unfitReason {
            findings.append(
                .init(
                    .warning, "route-not-followed", "route",
                    "\(why): the walk follows the straight lines between the points instead"))
        }
        guard route.source == .drawn || points.count <= maxPointsForPassCheck else { return findings }
        let what = route.source == .drawn ? "the route" : "the straight line between the points"
        for (i, p) in points.enumerated() {
            let passes = route.passes(near: p.coordinate, radius: p.triggerRadiusMeters)
            guard passes.count > 1 else { continue }
            let station = route.stations[i]
            let used = passes.firstIndex { station >= $0.from - 0.5 && station <= $0.to + 0.5 } ?? 0
            let list = passes.enumerated().map { k, pass in
                Self.metres(pass.nearest) + (k == used ? " (this one)" : "")
            }.joined(separator: ", ")
            let others = passes.count - 1
            findings.append(
                .init(
                    .warning, "route-passes-again", name(i),
                    "\(what) passes through its radius \(passes.count) times, at \(list) along it: it plays "
                        + "when the walker's progress reaches the pass at \(Self.metres(passes[used].nearest)); "
                        + "walking through it on the other \(others == 1 ? "pass" : "\(others) passes") fires nothing "
                        + "(a loop's meeting point plays at the end, a crossing on the second pass)"))
        }
        return findings
    }

    private func overlapFinding(
        _ i: Int, _ later: [RadiusOverlaps.Neighbour], points: [TourFolder.Point],
        name: (Int) -> String
    ) -> LintFinding {
        func reach(_ n: RadiusOverlaps.Neighbour) -> Double {
            points[i].triggerRadiusMeters + points[n.index].triggerRadiusMeters
        }
        if later.count == 1, let n = later.first {
            return .init(
                .warning, "overlapping-radii", "\(name(i)) and \(name(n.index))",
                "radii overlap (\(Self.metres(n.distance)) apart, radii add up to \(Self.metres(reach(n)))): both can trigger at once"
            )
        }
        var listed = later.prefix(Self.listedNeighbours).map {
            "\(name($0.index)), \(Self.metres($0.distance)) away (radii add up to \(Self.metres(reach($0))))"
        }
        if later.count > Self.listedNeighbours { listed.append("and \(later.count - Self.listedNeighbours) more") }
        return .init(
            .warning, "overlapping-radii", name(i),
            "radius overlaps those of \(later.count) later points: \(listed.joined(separator: "; ")): they can trigger at once"
        )
    }

    /// How many overlapping neighbours one finding names before it just counts them.
    static let listedNeighbours = 5

    private func subtitleChecks(_ url: URL, audioSeconds: Double?, in root: URL) -> [LintFinding] {
        let rel = relative(url, in: root)
        do {
            let track = try SubtitleTrack(contentsOf: url)
            guard let audioSeconds, let lastEnd = track.cues.map(\.end).max() else { return [] }
            if lastEnd > audioSeconds + 0.5 {
                return [
                    .init(
                        .warning, "subtitles-outlast-audio", rel,
                        "the last cue ends at \(WalkTime.duration(lastEnd)), after the narration (\(WalkTime.duration(audioSeconds)))"
                    )
                ]
            }
            return []
        } catch {
            if case .badSubtitles(_, let line, let reason) = error {
                return [.init(.error, "subtitles-unreadable", rel, "line \(line): \(reason)")]
            }
            return [.init(.error, "subtitles-unreadable", rel, error.message)]
        }
    }

    /// Checks a tour.json the loader refused, for the problems it would otherwise report one
    /// run at a time: duplicate orders and ids, media that is not there.
    private func rawChecks(root: URL) -> [LintFinding] {
        // Read as the loader reads: tour.json and media only inside the folder, regular files only.
        guard let paths = try? TourFolderPaths(root: root), let data = try? paths.manifest(),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let points = object["points"] as? [[String: Any]]
        else { return [] }
        var findings: [LintFinding] = []
        var orders: [Int: Int] = [:], ids: [String: Int] = [:]
        for (i, p) in points.enumerated() {
            if let order = p["order"] as? Int {
                if let first = orders[order] {
                    findings.append(
                        .init(
                            .error, "duplicate-order", "points[\(i)]",
                            "order: \(order) is used twice (points[\(first)] and points[\(i)])"))
                } else {
                    orders[order] = i
                }
            }
            if let id = p["id"] as? String {
                if let first = ids[id] {
                    findings.append(
                        .init(
                            .error, "duplicate-id", "points[\(i)]",
                            "id: \(id) is used twice (points[\(first)] and points[\(i)])"))
                } else {
                    ids[id] = i
                }
            }
            for (lang, value) in (p["content"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard let content = value as? [String: Any] else { continue }
                for key in ["audio", "subtitles", "image"] {
                    guard let path = content[key] as? String else { continue }
                    let check: String
                    do {
                        _ = try paths.file(path)
                        continue
                    } catch {
                        switch error {
                        case .missing, .brokenLink: check = "missing-media"
                        case .outside: check = "outside-folder"
                        case .notRegular: check = "not-a-file"
                        case .unreadable: check = "media-unreadable"
                        case .empty, .leavesByName: continue  // the loader's own words say it
                        }
                        findings.append(
                            .init(.error, check, "points[\(i)]", "content.\(lang).\(key): \(error.reason(for: path))"))
                    }
                }
            }
        }
        return findings
    }

    /// Nil when the bytes look like an image a phone can show (JPEG, PNG, GIF, WebP).
    static func imageProblem(_ url: URL) -> String? {
        let handle: FileHandle
        do { handle = try InputFile.handle(url.path) } catch { return error.reason }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 12)) ?? Data())
        if head.isEmpty { return "the file is empty" }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) || head.starts(with: [0x89, 0x50, 0x4E, 0x47])
            || head.starts(with: Array("GIF8".utf8))
            || (head.starts(with: Array("RIFF".utf8)) && head.count >= 12 && Array(head[8..<12]) == Array("WEBP".utf8))
        {
            return nil
        }
        return "not a JPEG, PNG, GIF or WebP image"
    }

    private func relative(_ url: URL, in root: URL) -> String {
        let base = root.standardizedFileURL.path + "/"
        let path = url.standardizedFileURL.path
        return path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path
    }

    static func metres(_ value: Double) -> String { "\(Int(value.rounded())) m" }
}
