import CFuzzerShim
import Foundation
import Positioning
import TourModel
import Walk

#if canImport(Glibc)
    import Glibc
#endif

/// libFuzzer target for saved walk progress (triggering rule 9): any bytes as a progress file.
/// Bytes that decode must be a progress the core can resume from: the walk core resumes on a
/// fixed five-point tour and takes a couple of dozen inputs (fixes, audio ends and failures,
/// every command) chosen by a generator seeded from the bytes. Crashes, hangs and broken
/// invariants are findings: every progress the core saves must itself pass `problem` and come
/// back equal through the file format, and the resume summary must be computable.
///
///     scripts/fuzz.sh progress 600        (make fuzz-progress FUZZ_SECONDS=600)
///
/// With an empty corpus folder as its argument, the target first writes seed files into it:
/// every progress saved along scripted walks (caught-up points, queues, previous, pause, quit).

/// Due north from (45.0, 9.0), a point every 222 m; point 3 has no audio (announced).
let tour = PlayableTour(
    id: "fuzz-tour", slug: "fuzz", language: "en", title: "Fuzz", completionMessage: "Done",
    points: (1...5).map { order in
        PlayablePoint(
            id: "p\(order)", order: order,
            coordinate: Coordinate(latitude: 45.0 + Double(order - 1) * 0.002, longitude: 9.0),
            triggerRadiusMeters: 30, title: "Point \(order)",
            audio: order == 3 ? nil : URL(fileURLWithPath: "/fuzz/\(order).mp3"))
    })
let t0 = Date(timeIntervalSince1970: 1_776_500_000)

/// A small deterministic generator (SplitMix64), so a crashing input replays exactly.
struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

func fix(at seconds: Double, point: Int, offsetMetres: Double = 0) -> Fix {
    let c = tour.points[point].coordinate
    return Fix(
        time: t0.addingTimeInterval(seconds),
        coordinate: Coordinate(latitude: c.latitude + offsetMetres / 111_000, longitude: c.longitude),
        mode: .threeD, horizontalError: 5)
}

/// Checks what the core hands out, and returns the point to finish next (what would play).
func check(_ effects: [WalkEffect], playing: inout String?) {
    for effect in effects {
        switch effect {
        case .saveProgress(let progress):
            precondition(progress.problem == nil, "the core saved a progress it would refuse: \(progress.problem!)")
            let data: Data
            do { data = try progress.fileData() } catch { preconditionFailure("cannot encode \(progress): \(error)") }
            do {
                let back = try WalkProgress.decode(fileData: data)
                precondition(sameWalk(back, progress), "progress changed through its file")
            } catch {
                preconditionFailure("a saved progress does not read back: \(error.message)")
            }
        case .play(let point): playing = point.id
        case .stop: playing = nil
        default: break
        }
    }
}

/// Equal but for the dates' last bits (the file keeps seconds since 1970 as decimal text).
func sameWalk(_ x: WalkProgress, _ y: WalkProgress) -> Bool {
    func close(_ a: Date?, _ b: Date?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): abs(a.timeIntervalSince(b)) < 1e-6
        default: false
        }
    }
    var a = x, b = y
    guard close(a.startedAt, b.startedAt), close(a.endedAt, b.endedAt), a.points.count == b.points.count,
        zip(a.points, b.points).allSatisfy({ close($0.triggeredAt, $1.triggeredAt) })
    else { return false }
    a.startedAt = nil; b.startedAt = nil; a.endedAt = nil; b.endedAt = nil
    for i in a.points.indices { a.points[i].triggeredAt = nil; b.points[i].triggeredAt = nil }
    return a == b
}

/// What `walk` prints when it resumes, computed the same way: counts and the next point.
func resumeSummary(_ progress: WalkProgress) -> String {
    let heard = progress.points.count { $0.status == .played }
    let next = tour.points.indices.contains(progress.nextIndex) ? tour.points[progress.nextIndex].title : "end"
    return "\(heard) of \(tour.points.count) heard; next is \(next)"
}

let callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = { data, size in
    let bytes = data.map { Data(UnsafeBufferPointer(start: $0, count: size)) } ?? Data()
    guard let saved = try? WalkProgress.decode(fileData: bytes) else { return 0 }
    precondition(saved.problem == nil, "a progress that decodes must have no problem")
    _ = resumeSummary(saved)
    guard var core = try? WalkCore(tour: tour, resuming: saved) else { return 0 }
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
    var random = Generator(state: hash)
    var playing: String? = saved.playing?.pointID
    var seconds = 0.0
    check(core.handle(.start, at: t0), playing: &playing)
    for _ in 0..<24 where !core.isFinished {
        seconds += Double(1 + random.below(30))
        let input: WalkInput
        switch random.below(8) {
        case 0, 1, 2:
            input = .fix(
                fix(at: seconds, point: random.below(tour.points.count), offsetMetres: Double(random.below(40))))
        case 3: input = .fix(fix(at: seconds, point: 0, offsetMetres: 5_000))
        case 4: input = .audioFinished(pointID: playing ?? "p\(1 + random.below(6))")
        case 5: input = .audioFailed(pointID: playing ?? "p1", reason: "fuzz")
        default: input = .command(WalkAction.allCases[random.below(WalkAction.allCases.count)])
        }
        if case .audioFinished(let id) = input, id == playing { playing = nil }
        if case .audioFailed(let id, _) = input, id == playing { playing = nil }
        check(core.handle(input, at: t0.addingTimeInterval(seconds)), playing: &playing)
        _ = resumeSummary(core.progress)
    }
    return 0
}

/// Scripted walks whose saved progress seeds the corpus.
func seedProgress() -> [Data] {
    var out: [Data] = []
    func run(_ policy: WalkPolicy, _ steps: [(Double, WalkInput)]) {
        var core = WalkCore(tour: tour, policy: policy)
        for (s, input) in steps {
            for case .saveProgress(let p) in core.handle(input, at: t0.addingTimeInterval(s)) {
                if let data = try? p.fileData() { out.append(data) }
            }
        }
    }
    let enter: (Int, Double) -> [(Double, WalkInput)] = { point, s in
        [(s, .fix(fix(at: s, point: point))), (s + 1, .fix(fix(at: s + 1, point: point)))]
    }
    run(
        WalkPolicy(),
        [(0, .start)] + enter(0, 1) + enter(3, 200) + [(210, .command(.previous)), (211, .command(.pause))]
            + [
                (220, .audioFinished(pointID: "p1")), (230, .command(.resume)), (240, .command(.skip)),
                (250, .command(.quit)),
            ])
    run(
        WalkPolicy(missed: .skip),
        [(0, .start)] + enter(2, 1) + [(5, .command(.replay))] + enter(4, 300)
            + [(400, .audioFinished(pointID: "p5"))])
    run(
        WalkPolicy(missed: .strict),
        [
            (0, .start), (1, .command(.skip)), (2, .command(.skip)), (3, .command(.pause)),
            (4, .command(.skip)),
        ])
    return out
}

guard ws_fuzzer_available() != 0 else {
    FileHandle.standardError.write(
        Data(
            "fuzz-progress: built without libFuzzer; build with -Xswiftc -sanitize=fuzzer (see scripts/fuzz.sh)\n".utf8)
    )
    exit(2)
}
if let corpus = CommandLine.arguments.dropFirst().first(where: { !$0.hasPrefix("-") }),
    (try? FileManager.default.contentsOfDirectory(atPath: corpus))?.isEmpty == true
{
    for (i, seed) in seedProgress().enumerated() {
        try? seed.write(to: URL(fileURLWithPath: corpus).appendingPathComponent("seed-\(i).json"))
    }
}
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
