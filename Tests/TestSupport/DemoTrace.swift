import Foundation

/// The demo tour's recorded walk as gpsd is fed it in the process-level walk tests: epochs (each
/// RMC starts one), every `stride`-th and the last, written `pace` seconds apart. A receiver
/// reporting every 4 s (as some do to save power) still walks the tour, and the walk takes a few
/// seconds instead of the quarter of an hour it took on foot.
public enum DemoTrace {
    /// Seconds between epochs written to gpsd: the whole trace in under 2 s, points 1 and 2 about
    /// a quarter of a second apart.
    public static let pace = 0.005
    /// Every how many of the receiver's 1 Hz epochs one is written.
    public static let stride = 4

    public static let epochs: [[String]] = {
        let url = TestPaths.demoTour.appendingPathComponent("traces/walk.nmea")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        var all: [[String]] = []
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("$") {
            if line.dropFirst(3).hasPrefix("RMC") || all.isEmpty { all.append([]) }
            all[all.count - 1].append(String(line))
        }
        return all.indices.filter { $0 % stride == 0 || $0 == all.count - 1 }.map { all[$0] }
    }()

    /// The first epoch at least `seconds` after the first one, by the receiver's time of day.
    public static func index(atSecond seconds: Double) -> Int {
        func time(_ epoch: [String]) -> Double? {
            guard let rmc = epoch.first(where: { $0.dropFirst(3).hasPrefix("RMC") }) else { return nil }
            let field = rmc.split(separator: ",", omittingEmptySubsequences: false)[1]
            guard field.count >= 6, let h = Double(field.prefix(2)), let m = Double(field.dropFirst(2).prefix(2)),
                let s = Double(field.dropFirst(4))
            else { return nil }
            return h * 3600 + m * 60 + s
        }
        guard let start = epochs.lazy.compactMap(time).first else { return epochs.count }
        return epochs.firstIndex { (time($0) ?? -1) - start >= seconds } ?? epochs.count
    }

    /// An epoch between points 2 and 3 (confirmed at 294 s and 403 s of the recorded walk): a test
    /// that stops a walk once point 2 is heard feeds up to here, so the walk cannot be carried on
    /// to point 3 before the stop (feeding until the walk said point 2, the feed ran on past point
    /// 3 once while the walk's output lagged on a machine busy with the rest of the suite).
    /// An epoch between points 1 and 2 (138 s and 294 s), for a test that stops a walk once point
    /// 1 triggers or plays, for the same reason (a full run once had point 2 recorded too).
    public static let afterPoint1 = index(atSecond: 220)
    public static let afterPoint2 = index(atSecond: 345)
    /// An epoch between points 3 and 4 (403 s and 621 s), for a test that stops once point 3 is
    /// heard, for the same reason.
    public static let afterPoint3 = index(atSecond: 500)

    /// Writes `range` of the epochs at `pace`, sleeping with Task.sleep so no cooperative thread is
    /// held; stops early once `stop` says so. Returns the index of the next epoch to write.
    public static func feed(_ gpsd: GPSDHarness, _ range: Range<Int>, until stop: () -> Bool = { false }) async -> Int {
        for i in range {
            gpsd.write(lines: epochs[i])
            try? await Task.sleep(for: .milliseconds(Int64(pace * 1000)))
            if stop() { return i + 1 }
        }
        return range.upperBound
    }
}

/// The demo tour (same ids, points, subtitles and trace) with short tones for narration, so a walk
/// in real time takes seconds.
public enum ShortDemo {
    /// Narration lengths, in seconds, by point: each at least one 400 ms block, so each has a
    /// measured loudness (docs/loudness.md).
    public static let narration: [Double] = [0.4, 0.4, 0.4, 0.45, 0.45]
    /// The same with point 1 long: at `DemoTrace`'s pace point 2 then triggers while point 1 still
    /// plays, and waits behind it, also when the feed's 5 ms sleeps take several times that on a
    /// machine busy with the rest of the suite (0.8 s was once too short there).
    public static let longFirst: [Double] = [3, 0.4, 0.4, 0.45, 0.45]

    /// A copy of the demo tour at `root` with narration of these lengths in both languages.
    @discardableResult
    public static func copy(to root: URL, narration: [Double] = narration) throws -> URL {
        try FileManager.default.copyItem(at: TestPaths.demoTour, to: root)
        for (i, seconds) in narration.enumerated() {
            let tone = try FixtureAudio.tone(seconds: seconds, frequency: 330 + 110 * Double(i))
            for language in ["en", "it"] {
                let target = root.appendingPathComponent(String(format: "media/%@/%02d.mp3", language, i + 1))
                try FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: tone.mp3, to: target)
            }
        }
        return root
    }
}
