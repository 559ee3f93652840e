import FileAccess
import Foundation
import Positioning
import TestSupport
import Testing
import TourModel

@testable import GPSD
@testable import Walk
@testable import WalkRuntime

/// The live runtime with real files and real time (short tones), fixes fed through a stream:
/// effects land on disk (progress, journal) and the walk ends as the core says.
@Suite(.serialized)
struct LiveWalkTests {
    static let origin = Coordinate(latitude: 43.7731, longitude: 11.2560)

    func tour(audio: [URL?]) -> PlayableTour {
        let points = audio.enumerated().map { i, url in
            PlayablePoint(
                id: "p\(i + 1)", order: i + 1,
                coordinate: Self.origin.destination(distance: Double(i) * 200, bearing: 90),
                triggerRadiusMeters: 25, title: "Point \(i + 1)", audio: url)
        }
        return PlayableTour(
            id: "live-tour", slug: "live", language: "en", title: "Live", completionMessage: "Done!", points: points)
    }

    /// Two fixes inside each point, in order, one second apart, stamped from `start`.
    func fixes(for tour: PlayableTour, start: Date) -> [GPSDEvent] {
        var t = start
        var out: [GPSDEvent] = [.state(.connected)]
        for p in tour.points {
            for _ in 0..<2 {
                out.append(.fix(Fix(time: t, coordinate: p.coordinate, mode: .threeD, horizontalError: 5)))
                t.addTimeInterval(1)
            }
            t.addTimeInterval(150)  // the walk between points, at a plausible pace
        }
        return out
    }

    @Test func silentWalkCompletesAfterTheLastNarrationAndRecordsEverything() async throws {
        let home = try TemporaryDirectory()
        let tone = try FixtureAudio.tone(seconds: 0.3)
        let tour = tour(audio: [tone.mp3, nil, tone.mp3])
        let store = ProgressStore(folder: home.file("progress"))
        let journal = EventJournal(url: home.file("outbox.jsonl"))
        let statuses = StatusRecorder()
        let walk = LiveWalk(
            core: WalkCore(tour: tour),
            dependencies: .init(
                narration: SilentNarration(), progress: store, journal: journal, display: { statuses.append($0) }))
        let (commands, commandSink) = AsyncStream.makeStream(of: WalkAction.self)
        commandSink.finish()
        let started = ContinuousClock.now
        let outcome = await walk.run(
            positions: AsyncStream { c in
                for u in fixes(for: tour, start: Date(timeIntervalSince1970: 1_800_000_000)) { c.yield(u) }
                // The source stays open like gpsd would, so only the narration can end the walk.
            }, commands: commands
        ).outcome
        let elapsed = ContinuousClock.now - started

        #expect(outcome == .completed(message: "Done!"))
        // Two narrations of 0.3 s each played in wall-clock time, back to back.
        #expect(elapsed >= .milliseconds(550))
        let saved = try #require(try store.load(tourID: "live-tour"))
        #expect(saved.outcome == .completed)
        #expect(saved.points.map(\.status) == [.played, .played, .played])
        let events = journal.read()
        #expect(
            events.map(\.name.rawValue) == [
                "tour_started", "point_triggered", "point_triggered", "point_triggered", "tour_completed",
            ])
        #expect(events.allSatisfy { $0.properties["platform"] == .string("linux") })
        let ids = events.compactMap { $0.properties["eventId"] }
        #expect(Set(ids).count == events.count)
        #expect(events.last?.properties["pointsVisited"] == .int(3))
        #expect(statuses.all.contains { $0.nowPlaying?.point.id == "p3" })
    }

    @Test func standingAtALoopsMeetingPointTheScreenSaysTheFinaleComesLater() async throws {
        let home = try TemporaryDirectory()
        // Point 1 east of the meeting point, the finale at it, the route round the block.
        let m = Self.origin
        let points = [
            PlayablePoint(
                id: "p1", order: 1, coordinate: m.destination(distance: 100, bearing: 90), triggerRadiusMeters: 25,
                title: "One"),
            PlayablePoint(
                id: "p2", order: 2, coordinate: m.destination(distance: 200, bearing: 0), triggerRadiusMeters: 25,
                title: "Two"),
            PlayablePoint(id: "p3", order: 3, coordinate: m, triggerRadiusMeters: 25, title: "Finale"),
        ]
        let east = m.destination(distance: 200, bearing: 90)
        let route = [m, east, east.destination(distance: 200, bearing: 0), m.destination(distance: 200, bearing: 0), m]
        let tour = PlayableTour(id: "loop", slug: "loop", language: "en", title: "Loop", points: points, route: route)
        let statuses = StatusRecorder()
        var core = WalkCore(tour: tour)
        _ = core.handle(.start, at: Date(timeIntervalSince1970: 1_800_000_000))
        // Point 1 heard already: the finale is next, and the walker stands in it at the start.
        core = try WalkCore(
            tour: tour,
            resuming: {
                var p = core.progress
                p.nextIndex = 2
                p.points[0].status = .played; p.points[0].triggeredAt = Date(timeIntervalSince1970: 1_800_000_000)
                p.points[1].status = .played; p.points[1].triggeredAt = Date(timeIntervalSince1970: 1_800_000_000)
                return p
            }())
        let walk = LiveWalk(
            core: core,
            dependencies: .init(
                narration: SilentNarration(), progress: ProgressStore(folder: home.file("progress")),
                journal: EventJournal(url: home.file("outbox.jsonl")), display: { statuses.append($0) }))
        let (commands, commandSink) = AsyncStream.makeStream(of: WalkAction.self)
        let outcome = Task {
            await walk.run(
                positions: AsyncStream { c in
                    c.yield(.state(.connected))
                    for s in 0..<3 {
                        c.yield(
                            .fix(
                                Fix(
                                    time: Date(timeIntervalSince1970: 1_800_000_000 + Double(s)), coordinate: m,
                                    mode: .threeD, horizontalError: 5)))
                    }
                }, commands: commands
            ).outcome
        }
        try await Task.sleep(for: .milliseconds(300))
        commandSink.yield(.quit)
        commandSink.finish()
        #expect(await outcome.value == .abandoned)
        let withFix = statuses.all.filter { $0.lastFix != nil }
        #expect(!withFix.isEmpty)
        #expect(withFix.allSatisfy { !$0.nextPointReached })
        #expect(withFix.allSatisfy { $0.progress.points[2].status == .pending })
    }

    @Test func quitAbandonsAndKeepsProgressForResume() async throws {
        let home = try TemporaryDirectory()
        let long = try FixtureAudio.tone(seconds: 5)
        let tour = tour(audio: [long.mp3, long.mp3])
        let store = ProgressStore(folder: home.file("progress"))
        let journal = EventJournal(url: home.file("outbox.jsonl"))
        let (commands, commandSink) = AsyncStream.makeStream(of: WalkAction.self)
        let firstPlaying = StatusRecorder()
        let walk = LiveWalk(
            core: WalkCore(tour: tour),
            dependencies: .init(
                narration: SilentNarration(), progress: store, journal: journal,
                display: { status in
                    firstPlaying.append(status)
                    if status.nowPlaying?.point.id == "p1" { commandSink.yield(.quit) }
                }))
        let all = fixes(for: tour, start: Date(timeIntervalSince1970: 1_800_000_000))
        let outcome = await walk.run(
            positions: AsyncStream { c in
                for u in all.prefix(3) { c.yield(u) }
            }, commands: commands
        ).outcome
        #expect(outcome == .abandoned)
        let saved = try #require(try store.load(tourID: "live-tour"))
        #expect(saved.outcome == .abandoned)
        #expect(journal.read().last?.name == .tourAbandoned)
        #expect(journal.read().last?.properties["lastPointIndex"] == .int(0))
    }

    @Test func aStateFolderThatCannotBeWrittenWarnsOnceAndEverythingIsWrittenWhenItCanBe() async throws {
        let home = try TemporaryDirectory()
        // A regular file where the state folder should be: nothing can be created under it, for
        // root as for anyone (chmod does not stop root).
        let state = try home.write("state", "not a folder")
        let tone = try FixtureAudio.tone(seconds: 0.3)
        let tour = tour(audio: [tone.mp3, tone.mp3, tone.mp3])
        let store = ProgressStore(folder: state.appendingPathComponent("progress"))
        let journal = EventJournal(url: state.appendingPathComponent("outbox.jsonl"))
        let statuses = StatusRecorder()
        let walk = LiveWalk(
            core: WalkCore(tour: tour),
            dependencies: .init(
                narration: SilentNarration(), progress: store, journal: journal,
                display: { status in
                    statuses.append(status)
                    // The disk comes back once point 2 has been heard (its events held back until then).
                    if status.heardCount == 2,
                        (try? state.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
                    {
                        try? FileManager.default.removeItem(at: state)
                        try? FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
                    }
                }))
        let (commands, commandSink) = AsyncStream.makeStream(of: WalkAction.self)
        commandSink.finish()
        let result = await walk.run(
            positions: AsyncStream { c in
                for u in fixes(for: tour, start: Date(timeIntervalSince1970: 1_800_000_000)) { c.yield(u) }
            }, commands: commands)

        #expect(result.outcome == .completed(message: "Done!"))  // the walk went on, narrating
        #expect(result.unsaved == nil)
        let notices = statuses.all.compactMap(\.notice).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(notices.count == 2, "\(notices)")
        #expect(notices.first?.hasPrefix("cannot ") == true)
        #expect(notices.first?.contains("Not a directory") == true)
        #expect(notices.last?.hasPrefix("saving works again") == true)
        // Every event, once, in the order it happened.
        let events = journal.read()
        #expect(
            events.map(\.name.rawValue) == [
                "tour_started", "point_triggered", "point_triggered", "point_triggered", "tour_completed",
            ])
        #expect(events.filter { $0.name == .pointTriggered }.compactMap(\.pointID) == ["p1", "p2", "p3"])
        #expect(events.map(\.timestamp) == events.map(\.timestamp).sorted())
        #expect(Set(events.compactMap { $0.properties["eventId"] }).count == 5)
        #expect(try store.load(tourID: "live-tour")?.outcome == .completed)
    }

    @Test func whatCouldNeverBeWrittenIsSaidAtTheEnd() async throws {
        let home = try TemporaryDirectory()
        let state = try home.write("state", "not a folder")
        let tour = tour(audio: [nil])
        let walk = LiveWalk(
            core: WalkCore(tour: tour),
            dependencies: .init(
                narration: SilentNarration(), progress: ProgressStore(folder: state.appendingPathComponent("progress")),
                journal: EventJournal(url: state.appendingPathComponent("outbox.jsonl")), display: { _ in }))
        let (commands, commandSink) = AsyncStream.makeStream(of: WalkAction.self)
        commandSink.finish()
        let result = await walk.run(
            positions: AsyncStream { c in
                for u in fixes(for: tour, start: Date(timeIntervalSince1970: 1_800_000_000)) { c.yield(u) }
            }, commands: commands)
        #expect(result.outcome == .completed(message: "Done!"))
        let unsaved = try #require(result.unsaved)
        #expect(unsaved.contains("3 analytics events"), "\(unsaved)")
        #expect(unsaved.contains("progress"), "\(unsaved)")
    }

    @Test func progressFileIsReplacedAtomicallyAndRoundTrips() throws {
        let home = try TemporaryDirectory()
        let store = ProgressStore(folder: home.file("progress"))
        var progress = WalkProgress(tourID: "a/b:c", language: "it", pointIDs: ["x", "y"])
        progress.startedAt = Date(timeIntervalSince1970: 1_800_000_000.5)
        progress.nextIndex = 1
        progress.points[0].status = .played
        try store.save(progress)
        let name = store.url(forTour: "a/b:c").lastPathComponent
        #expect(try store.load(tourID: "a/b:c") == progress)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: home.file("progress").path)
        #expect(leftovers == [name])  // no temporary file left behind
        try Data("{not json".utf8).write(to: store.url(forTour: "broken"))
        #expect(throws: WalkError.self) { try store.load(tourID: "broken") }
        #expect(try store.load(tourID: "never-walked") == nil)
    }

    @Test func silentWalkShowsElapsedTimeAndSubtitlesAsTheNarrationGoesOn() async throws {
        let home = try TemporaryDirectory()
        let tone = try FixtureAudio.tone(seconds: 3)
        let srt = try home.write(
            "p1.srt", "1\n00:00:00,000 --> 00:00:01,400\nFirst cue\n\n2\n00:00:01,600 --> 00:00:02,800\nSecond cue\n")
        var tour = tour(audio: [tone.mp3])
        tour.points[0].subtitles = srt
        let statuses = StatusRecorder()
        let walk = LiveWalk(
            core: WalkCore(tour: tour),
            dependencies: .init(
                narration: SilentNarration(), progress: ProgressStore(folder: home.file("progress")),
                journal: EventJournal(url: home.file("outbox.jsonl")), display: { statuses.append($0) }))
        let (commands, commandSink) = AsyncStream.makeStream(of: WalkAction.self)
        commandSink.finish()
        let outcome = await walk.run(
            positions: AsyncStream { c in
                for u in fixes(for: tour, start: Date(timeIntervalSince1970: 1_800_000_000)) { c.yield(u) }
            }, commands: commands
        ).outcome
        #expect(outcome == .completed(message: "Done!"))
        let playing = statuses.all.compactMap { s in s.nowPlaying.map { (elapsed: $0.elapsed, subtitle: s.subtitle) } }
        let elapsed = playing.map(\.elapsed)
        #expect(elapsed == elapsed.sorted(), "elapsed time only moves forward")
        #expect(elapsed.contains { $0 >= 1.0 }, "\(elapsed)")
        // Every quarter of a second, as the real queue reports: 3 s give eleven steps, at least
        // three when a machine busy with the rest of the suite holds the ticks back (1.5 s once
        // gave two).
        #expect(Set(elapsed.filter { $0 > 0 }).count >= 3, "\(elapsed)")
        let subtitles = playing.compactMap(\.subtitle)
        #expect(subtitles.first == "First cue")
        #expect(subtitles.contains("Second cue"))
    }

    /// Each position is when it is reported: on a machine busy with the rest of the suite the
    /// ticks come late and fewer (three of a 2 s tone, seven seconds for the test once), but each
    /// says where the narration really is, and a pause is never counted as heard.
    @Test func silentNarrationReportsPositionsEveryIntervalAndHoldsThemWhilePaused() async throws {
        let tone = try FixtureAudio.tone(seconds: 2)
        let narration = SilentNarration()
        let point = PlayablePoint(
            id: "p", order: 1, coordinate: Self.origin, triggerRadiusMeters: 20, title: "P", audio: tone.mp3)
        // Read as they come, each with when it came.
        let reader = Task {
            var seen: [(at: ContinuousClock.Instant, seconds: Double?)] = []
            for await event in narration.events {
                if case .position(_, let seconds) = event { seen.append((.now, seconds)) }
                if case .finished = event {
                    seen.append((.now, nil))
                    break
                }
            }
            return seen
        }
        let started = ContinuousClock.now
        await narration.play(point)
        try await Task.sleep(for: .milliseconds(600))
        let pausedAt = ContinuousClock.now
        await narration.pause()
        try await Task.sleep(for: .milliseconds(1500))
        let resumedAt = ContinuousClock.now
        await narration.resume()
        let seen = await reader.value
        await narration.shutdown()
        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        let paused = seconds(resumedAt - pausedAt)
        let positions = seen.compactMap { $0.seconds.map { $0 } }
        #expect(positions == positions.sorted())
        #expect(positions.allSatisfy { $0 <= tone.duration })
        // The pause's own report and the ticks after it, at least.
        #expect(positions.count >= 2, "\(positions)")
        // Never ahead of the time played: the wall time since the start, less the pause once it
        // began (a narration that counted the pause would be 1.5 s ahead after it).
        for (at, position) in seen {
            guard let position else { continue }
            let played = seconds(at - started) - (at > pausedAt ? min(paused, seconds(at - pausedAt)) : 0)
            #expect(position <= played + 0.05, "\(position) s reported after \(played) s played: \(positions)")
        }
        // And it ends the pause's length after the tone's, or later.
        let end = try #require(seen.last.flatMap { $0.seconds == nil ? $0.at : nil })
        #expect(seconds(end - started) >= tone.duration + paused - 0.05, "ended \(end - started) after the start")
    }

    @Test func progressFilesOfIdsThatSanitiseAlikeDoNotCollide() throws {
        let home = try TemporaryDirectory()
        let store = ProgressStore(folder: home.file("progress"))
        var slash = WalkProgress(tourID: "tour/1", language: "en", pointIDs: ["a"])
        // A real walk past its first point: the store refuses a progress no walk could write.
        slash.startedAt = Date(timeIntervalSince1970: 1_800_000_000)
        slash.points[0] = .init(id: "a", status: .played, triggeredAt: slash.startedAt, triggerType: .gps)
        slash.lastHeard = "a"
        slash.nextIndex = 1
        let underscore = WalkProgress(tourID: "tour_1", language: "it", pointIDs: ["b", "c"])
        try store.save(slash)
        try store.save(underscore)
        #expect(store.url(forTour: "tour/1") != store.url(forTour: "tour_1"))
        #expect(try store.load(tourID: "tour/1") == slash)
        #expect(try store.load(tourID: "tour_1") == underscore)
    }

    @Test func aVeryLongTourIDHasAShortProgressFileName() throws {
        let home = try TemporaryDirectory()
        let store = ProgressStore(folder: home.file("progress"))
        let id = String(repeating: "x", count: 300)
        let progress = WalkProgress(tourID: id, language: "en", pointIDs: ["a"])
        try store.save(progress)
        #expect(try store.load(tourID: id) == progress)
        #expect(store.url(forTour: id).lastPathComponent.utf8.count < 64)
    }

    @Test func progressFileNamesAreTheFNV1a64OfTheTourID() {
        // Published FNV-1a 64-bit test vectors (Fowler, Noll and Vo's reference suite).
        #expect(FNV1a64.hex("") == "cbf29ce484222325")
        #expect(FNV1a64.hex("a") == "af63dc4c8601ec8c")
        #expect(FNV1a64.hex("foobar") == "85944171f73967e8")
        let store = ProgressStore(folder: URL(fileURLWithPath: "/state/progress"))
        #expect(store.url(forTour: "foobar").path == "/state/progress/85944171f73967e8.progress.json")
    }

    /// A save that fails in the write itself says why in the system's words. It said "The
    /// operation could not be completed. (FileAccess.FileAccessError error 1.)" (a full disk, when
    /// the folder was there and the file was not).
    @Test func aProgressSaveThatFailsSaysWhyInTheSystemsWords() throws {
        let home = try TemporaryDirectory()
        let store = ProgressStore(folder: home.file("progress"))
        let progress = WalkProgress(tourID: "mine", language: "en", pointIDs: ["a"])
        try store.save(progress)
        // A folder where the file goes: the rename over it fails (EISDIR), for root as for anyone.
        try FileManager.default.removeItem(at: store.url(forTour: "mine"))
        try FileManager.default.createDirectory(at: store.url(forTour: "mine"), withIntermediateDirectories: false)
        do {
            try store.save(progress)
            Issue.record("saved over a folder")
        } catch {
            #expect(error.message.hasSuffix(": Is a directory"), "\(error.message)")
            #expect(!error.message.contains("could not be completed"), "\(error.message)")
        }
    }

    /// A FIFO in the progress file's place hung the walk before its first line; a folder there
    /// was "The operation could not be completed. (NSCocoaErrorDomain error 256.)".
    @Test func aProgressFileThatIsAFIFOOrAFolderIsRefusedAtOnceSayingWhatItIs() throws {
        let home = try TemporaryDirectory()
        let store = ProgressStore(folder: home.file("progress"))
        try FileManager.default.createDirectory(at: home.file("progress"), withIntermediateDirectories: true)
        #expect(mkfifo(store.url(forTour: "fifo").path, 0o600) == 0)
        try FileManager.default.createDirectory(at: store.url(forTour: "folder"), withIntermediateDirectories: false)
        // A link to nothing was taken for no saved walk, and written over; a 3 GB file was read
        // whole (8 s, 3 GB of memory) before it was found not to be JSON.
        #expect(symlink(home.file("moved-away.json").path, store.url(forTour: "link").path) == 0)
        let huge = FileManager.default.createFile(atPath: store.url(forTour: "huge").path, contents: nil)
        #expect(huge && truncate(store.url(forTour: "huge").path, 3 << 30) == 0)
        for (tour, what) in [
            ("fifo", "FIFO"), ("folder", "folder"), ("link", "a symbolic link to"), ("huge", "3072 MB, more than any"),
        ] {
            do {
                _ = try store.load(tourID: tour)
                Issue.record("\(tour) was read")
            } catch {
                #expect(error.message.hasPrefix("cannot read the saved progress in "), "\(error.message)")
                #expect(error.message.contains(what), "\(error.message)")
                #expect(!error.message.contains("could not be completed"), "\(error.message)")
            }
        }
    }

    /// The walk's lock beside the progress could not be taken and the note said only "No such
    /// file or directory" (the folder a link to nothing) or "Not a directory" (a file in its place).
    @Test func aProgressFolderThatIsALinkToNothingOrAFileIsNamedAsSuch() throws {
        let home = try TemporaryDirectory()
        let link = home.file("link-progress")
        #expect(symlink(home.file("gone").path, link.path) == 0)
        let file = home.file("file-progress")
        #expect(FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8)))
        // A link that leads somewhere is no problem on the way: the file past it is (it was named
        // "a symbolic link to ..., which does not exist").
        let real = home.file("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: real.appendingPathComponent("file").path, contents: Data()))
        let good = home.file("good-link")
        #expect(symlink(real.path, good.path) == 0)
        for (folder, what) in [
            (link, "\(link.path) is a symbolic link to \(home.file("gone").path), which does not exist"),
            (file, "\(file.path) is not a folder"),
            (good.appendingPathComponent("file/progress"), "\(good.path)/file is not a folder"),
        ] {
            let store = ProgressStore(folder: folder)
            let lock = store.lock(forTour: "t")
            guard case .unavailable(let reason) = store.acquire(lock) else {
                Issue.record("the lock in \(folder.path) was taken")
                continue
            }
            #expect(reason == what)
        }
    }

    @Test func aProgressFileHoldingAnotherToursWalkIsNeverTakenForThisOne() throws {
        // Two ids with the same 64-bit name would share a file: the id stored inside tells them apart.
        let home = try TemporaryDirectory()
        let store = ProgressStore(folder: home.file("progress"))
        try store.save(WalkProgress(tourID: "other", language: "en", pointIDs: ["a"]))
        try FileManager.default.moveItem(at: store.url(forTour: "other"), to: store.url(forTour: "mine"))
        #expect(throws: WalkError.self) { try store.load(tourID: "mine") }
        do { _ = try store.load(tourID: "mine") } catch { #expect(error.message.contains("other")) }
    }

    @Test func progressSavedUnderTheOldFileNameIsFoundAndMoved() throws {
        let home = try TemporaryDirectory()
        let folder = home.file("progress")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = ProgressStore(folder: folder)
        var slash = WalkProgress(tourID: "tour/1", language: "en", pointIDs: ["a", "b"])
        slash.nextIndex = 1
        slash.points[0].status = .played
        // Before names were hashed, "tour/1" was saved as tour_1.json (and so would "tour_1" be).
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        try encoder.encode(slash).write(to: folder.appendingPathComponent("tour_1.json"))
        #expect(try store.load(tourID: "tour_1") == nil)  // not its walk: left where it is
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("tour_1.json").path))
        #expect(try store.load(tourID: "tour/1") == slash)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("tour_1.json").path))
        #expect(try store.load(tourID: "tour/1") == slash)  // from its new name now
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path) == [
                store.url(forTour: "tour/1").lastPathComponent
            ])
    }

    @Test func aTourLockIsHeldByOneHolderAtATimeAndNamesItsPID() throws {
        let home = try TemporaryDirectory()
        let store = ProgressStore(folder: home.file("progress"))
        let first = store.lock(forTour: "tour/1"), second = store.lock(forTour: "tour/1")
        #expect(store.acquire(first) == .held)
        #expect(store.acquire(first) == .held)  // again: still ours
        #expect(store.acquire(second) == .busy(.init(pid: getpid(), purpose: "walking")))
        #expect(store.acquire(store.lock(forTour: "tour_1")) == .held)  // another tour, another lock
        first.release()
        #expect(store.acquire(second) == .held)
    }

    @Test func aTourLockInAFolderThatCannotExistIsUnavailable() throws {
        let home = try TemporaryDirectory()
        try home.write("state", "a file where the state folder should be")
        let store = ProgressStore(folder: home.file("state/progress"))
        guard case .unavailable(let reason) = store.acquire(store.lock(forTour: "t")) else {
            Issue.record("expected unavailable")
            return
        }
        #expect(reason == "\(home.file("state").path) is not a folder")
    }

    @Test func silentNarrationHoldsTimeWhilePaused() async throws {
        let tone = try FixtureAudio.tone(seconds: 0.4)
        let narration = SilentNarration()
        let point = PlayablePoint(
            id: "p", order: 1, coordinate: Self.origin, triggerRadiusMeters: 20, title: "P", audio: tone.mp3)
        let started = ContinuousClock.now
        await narration.play(point)
        try await Task.sleep(for: .milliseconds(100))
        await narration.pause()
        try await Task.sleep(for: .milliseconds(500))
        await narration.resume()
        var events: [NarrationEvent] = []
        for await event in narration.events {
            events.append(event)
            if case .finished = event { break }
        }
        let elapsed = ContinuousClock.now - started
        #expect(events.first == .started(pointID: "p", duration: tone.duration))
        #expect(events.last == .finished(pointID: "p"))
        #expect(elapsed >= .milliseconds(880))  // 0.4 s of narration + 0.5 s held
        await narration.shutdown()
    }
}

final class StatusRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [LiveWalkStatus] = []
    func append(_ s: LiveWalkStatus) { lock.withLock { statuses.append(s) } }
    var all: [LiveWalkStatus] { lock.withLock { statuses } }
}
