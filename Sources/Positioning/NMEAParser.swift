import Foundation
import TourModel

/// A streaming NMEA 0183 parser: feed it lines, get a `Fix` per epoch.
///
/// Receivers report one epoch (one instant) as several sentences: GGA has the altitude and
/// satellites, RMC the date and speed, GSA the fix mode and DOPs, GST the error ellipse. The
/// parser merges the sentences that share a time of day and emits the epoch's fix when the next
/// epoch begins (or on `finish()`). Untimed sentences (GSA, VTG) join the epoch in progress.
///
/// It is built for `walkscape preview --fast` on multi-hour traces: it reads the bytes in place,
/// never builds a `String` or splits into arrays, and allocates nothing per sentence.
///
/// Rules, each pinned by a test:
/// - Any talker: the two letters after `$` are ignored, so GP, GN, GL, GA, BD, GB, GQ all work.
/// - A `*HH` checksum is verified (either hex case); a wrong one rejects the sentence. A
///   sentence without a checksum is accepted: many loggers strip them. Bytes after `*HH` (a
///   logger's timestamp) are ignored.
/// - RMC/GLL status other than `A` (`V`, or the `N` some Magellans send), an FAA mode `N`
///   (not valid), `S` (simulator) or `M` (manual), and GGA quality 0, 7 (manual) or 8
///   (simulator), or GGA with 0 satellites used, give no position (`noFix`): none of them says
///   where the walker is. Such a sentence vetoes its whole epoch, as gpsd does.
/// - `$P...` proprietary and unknown sentences are skipped and counted, never an error.
/// - CR, LF, CRLF and `\r\r\n` line ends, blank lines, `#` comment lines and noise before the
///   `$` (even noise containing a `$`: the last `$` starts the sentence) are all tolerated.
/// - Dates come from RMC (two-digit year: 80...99 are 1980...1999, 00...79 are 2000...2079, since
///   GPS has no civilian dates before 1980) or ZDA (four digits). Before any date is seen, times
///   fall on 1970-01-01 (`undatedDay`); a time of day that goes back by more than 12 hours
///   without a new date is taken as a midnight rollover.
/// - Position preference within an epoch: GGA, then GNS, then RMC, then GLL (GGA usually
///   carries the most digits).
public struct NMEAParser: Sendable {
    public private(set) var statistics = NMEAStatistics()

    /// Days since 1970-01-01 of the current UTC date, once a date sentence has been seen.
    private var day: Int?
    /// The day assumed for times before any date is known.
    public static let undatedDay = 0
    /// Whether a fix's time is one of those (1970, with any midnight rollover: no date is before
    /// 1980), so that only its time of day means anything.
    public static func isUndated(_ time: Date) -> Bool { time.timeIntervalSince1970 < 3652 * 86_400 }
    /// An undated time's time of day on the UTC day that puts it nearest `reference` (its own, the
    /// one before across midnight, or the one after for a sentence a second out of order): where a
    /// recording that began before the receiver's first date really began, or when a report gpsd
    /// sent without a date was.
    public static func redate(_ undated: Date, near reference: Date) -> Date {
        let near = reference.timeIntervalSince1970
        let day = (near / 86_400).rounded(.down) * 86_400
        let time = undated.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400)
        let nearest = [day - 86_400, day, day + 86_400].map { $0 + time }.min { abs($0 - near) < abs($1 - near) }!
        return Date(timeIntervalSince1970: nearest)
    }
    private var rolloverDays = 0
    private var lastTimeOfDay: Int?
    /// The fix mode the latest GSA reported; persists because receivers send GSA at their own rate.
    private var gsaMode: Fix.Mode?
    private var gsaHDOP: Double?
    private var epoch = Epoch()
    /// The time of day (milliseconds since midnight UTC) of the epoch being read; nil before its
    /// first timed sentence. A live reader (`GPSDSource`) tells by it whether a receiver's epoch
    /// begins with an untimed sentence, and whether a sentence belongs to an epoch it has ended.
    public var epochTimeOfDay: Int? { epoch.timeOfDay }
    /// The time of the last fix emitted, for sentences without a time of their own.
    private var lastEmittedTime: Date?

    public init() {}

    /// One epoch's accumulated fields. `timeOfDay` is in milliseconds since midnight UTC.
    private struct Epoch {
        var timeOfDay: Int?
        var hasContent = false
        var positionRank = 0
        var latitude = 0.0
        var longitude = 0.0
        var altitude: Double?
        var speed: Double?
        var track: Double?
        var satellites: Int?
        var hdop: Double?
        var gstError: Double?
        /// Days since 1970 of this epoch's UTC date: fixed when the epoch begins (the current date
        /// plus any midnight rollover), replaced by the epoch's own RMC date.
        var day = NMEAParser.undatedDay
        /// A sentence of this epoch said the receiver has no fix; that vetoes the epoch's
        /// position even if another sentence of it carries one (a Garmin sends GGA quality 6
        /// with RMC status V for the same instant; gpsd reports no fix there either).
        var vetoed = false
    }

    private enum Rank {
        static let gll = 1, rmc = 2, gns = 3, gga = 4
    }

    // MARK: Feeding

    /// Parses one line (without its `\n`; trailing `\r`s and spaces are ignored). Returns the
    /// fix of the previous epoch when this line starts a new one.
    public mutating func parse(line: UnsafeBufferPointer<UInt8>) -> Fix? {
        statistics.lines += 1
        guard let base = line.baseAddress, line.count > 0 else {
            statistics.blankLines += 1
            return nil
        }
        var end = line.count
        while end > 0, base[end - 1] == 13 || base[end - 1] == 32 || base[end - 1] == 9 || base[end - 1] == 0 {
            end -= 1
        }
        var start = 0
        while start < end, base[start] == 32 || base[start] == 9 || base[start] == 13 { start += 1 }
        if start == end {
            statistics.blankLines += 1
            return nil
        }
        if base[start] == UInt8(ascii: "#") {
            statistics.comments += 1
            return nil
        }
        // Resynchronise on the first `$` or `!` (the very first byte, almost always);
        // `parseSentence` moves on to any later one.
        var dollar = start
        while dollar < end, base[dollar] != 36, base[dollar] != 33 { dollar += 1 }
        guard dollar < end else {
            statistics.notASentence += 1
            return nil
        }
        statistics.sentences += 1
        return parseSentence(base, from: dollar + 1, to: end, encapsulated: base[dollar] == 33)
    }

    /// Convenience for tests and small inputs.
    public mutating func parse(_ line: String) -> Fix? {
        var copy = line
        return copy.withUTF8 { parse(line: $0) }
    }

    /// Ends the stream, or the epoch in progress (a live receiver's, once its sentences stop
    /// coming): returns its fix, if it had a position. A later sentence of the same instant
    /// starts an epoch of its own.
    public mutating func finish() -> Fix? {
        defer { epoch = Epoch() }
        return emit()
    }

    // MARK: Sentences

    private mutating func parseSentence(
        _ p: UnsafePointer<UInt8>, from start: Int, to lineEnd: Int,
        encapsulated startsWithBang: Bool
    ) -> Fix? {
        // One pass finds the `*` (reserved, so the first one is the checksum's), XORs the body,
        // and restarts at any later `$` or `!`: both are reserved characters that only ever
        // start a sentence, so whatever came before was noise or a sentence cut off mid-line.
        var bodyStart = start
        var encapsulated = startsWithBang
        var bodyEnd = start
        // Eight bytes at a time while none of them is reserved (nearly the whole body: a sentence's
        // only `*` is near its end), then byte by byte from the word that holds one.
        var wide: UInt64 = 0
        let raw = UnsafeRawPointer(p)
        while bodyEnd + 8 <= lineEnd {
            let word = raw.loadUnaligned(fromByteOffset: bodyEnd, as: UInt64.self)
            if holdsReserved(word) { break }
            wide ^= word
            bodyEnd += 8
        }
        var sum = foldXOR(wide)
        while bodyEnd < lineEnd {
            let c = p[bodyEnd]
            if c == 42 { break }
            if c == 36 || c == 33 {
                bodyStart = bodyEnd + 1
                encapsulated = c == 33
                sum = 0
            } else {
                sum ^= c
            }
            bodyEnd += 1
        }
        // Two hex digits after the `*`; whatever a logger appended after them is ignored.
        if bodyEnd < lineEnd {
            guard bodyEnd + 2 < lineEnd, let hi = hexValue(p[bodyEnd + 1]), let lo = hexValue(p[bodyEnd + 2]) else {
                statistics.malformed += 1
                return nil
            }
            guard sum == hi << 4 | lo else {
                statistics.badChecksum += 1
                return nil
            }
        }
        if encapsulated {  // `!` sentences (AIS): not positions of ours
            statistics.unsupported += 1
            return nil
        }
        // Address: `P` + maker (proprietary), or two talker letters + three type letters.
        guard bodyStart < bodyEnd else {
            statistics.malformed += 1
            return nil
        }
        if p[bodyStart] == UInt8(ascii: "P") {
            statistics.proprietary += 1
            return nil
        }
        var comma = bodyStart
        while comma < bodyEnd, p[comma] != 44 { comma += 1 }
        guard comma - bodyStart == 5 else {
            // Unusual address lengths (4-letter talkers, bare types) are standard-shaped but not ours.
            if comma - bodyStart >= 3, isUpperAlnum(p, bodyStart, comma) {
                statistics.unsupported += 1
            } else {
                statistics.malformed += 1
            }
            return nil
        }
        let a = p[bodyStart + 2], b = p[bodyStart + 3], c = p[bodyStart + 4]
        var cursor = FieldCursor(p: p, position: comma, end: bodyEnd)
        switch (a, b, c) {
        case (71, 71, 65): return gga(&cursor)  // GGA
        case (82, 77, 67): return rmc(&cursor)  // RMC
        case (71, 76, 76): return gll(&cursor)  // GLL
        case (71, 78, 83): return gns(&cursor)  // GNS
        case (71, 83, 65): gsa(&cursor); return nil  // GSA
        case (71, 83, 84): return gst(&cursor)  // GST
        case (86, 84, 71): vtg(&cursor); return nil  // VTG
        case (90, 68, 65): zda(&cursor); return nil  // ZDA
        default:
            statistics.unsupported += 1
            return nil
        }
    }

    /// GGA: time, lat, N/S, lon, E/W, quality, satellites, HDOP, altitude, M, geoid, M, ...
    private mutating func gga(_ f: inout FieldCursor) -> Fix? {
        let timeField = f.next()
        let latField = f.next(), ns = f.next(), lonField = f.next(), ew = f.next()
        let quality = f.next()
        let sats = f.next(), hdop = f.next(), alt = f.next()
        let q = f.integer(quality)
        // No quality; 0: no fix; 7: manual input; 8: simulator. None is where the walker is.
        // 0 satellites used with a "fix" is a receiver coasting on a stale solution.
        if q == nil || q == 0 || q == 7 || q == 8 || f.integer(sats) == 0 {
            return noFix(at: timeField, f)
        }
        guard let tod = timeOfDay(f, timeField) else { return malformed() }
        let fix = beginEpoch(tod)
        guard let coordinate = f.coordinate(latField, ns, lonField, ew) else {
            if f.isEmpty(latField) { statistics.noFix += 1; return fix }
            return malformed(keeping: fix)
        }
        statistics.used += 1
        setPosition(coordinate, rank: Rank.gga)
        epoch.satellites = f.integer(sats) ?? epoch.satellites
        if let h = f.unsigned(hdop) { epoch.hdop = h }
        if let alt = f.decimal(alt) { epoch.altitude = alt }
        return fix
    }

    /// GNS: time, lat, N/S, lon, E/W, mode characters, satellites, HDOP, altitude, ...
    private mutating func gns(_ f: inout FieldCursor) -> Fix? {
        let timeField = f.next()
        let latField = f.next(), ns = f.next(), lonField = f.next(), ew = f.next()
        let mode = f.next(), sats = f.next(), hdop = f.next(), alt = f.next()
        guard let tod = timeOfDay(f, timeField) else { return malformed() }
        let fix = beginEpoch(tod)
        // One mode letter per constellation; all `N` means no fix.
        var anyValid = false
        for i in mode.lowerBound..<mode.upperBound where f.p[i] != UInt8(ascii: "N") { anyValid = true }
        guard anyValid else {
            statistics.noFix += 1
            return fix
        }
        guard let coordinate = f.coordinate(latField, ns, lonField, ew) else {
            if f.isEmpty(latField) { statistics.noFix += 1; return fix }
            return malformed(keeping: fix)
        }
        statistics.used += 1
        setPosition(coordinate, rank: Rank.gns)
        epoch.satellites = f.integer(sats) ?? epoch.satellites
        if let h = f.unsigned(hdop) { epoch.hdop = h }
        if let alt = f.decimal(alt) { epoch.altitude = alt }
        return fix
    }

    /// RMC: time, status, lat, N/S, lon, E/W, knots, track, ddmmyy, magvar, E/W, FAA mode, nav status.
    private mutating func rmc(_ f: inout FieldCursor) -> Fix? {
        let timeField = f.next(), status = f.next()
        let latField = f.next(), ns = f.next(), lonField = f.next(), ew = f.next()
        let knots = f.next(), track = f.next(), date = f.next()
        _ = f.next(); _ = f.next()
        let faaMode = f.next()
        guard f.isChar(status, "A") || f.isChar(status, "D"), !f.isNoFixMode(faaMode) else {
            return noFix(at: timeField, f)
        }
        guard let tod = timeOfDay(f, timeField) else { return malformed() }
        // An impossible date (31 February) is a broken sentence, never carried into March.
        let newDay = f.ddmmyy(date)
        guard newDay != nil || f.isEmpty(date) else { return malformed() }
        // Begin the epoch first, so the previous one keeps the date it had.
        let fix = beginEpoch(tod)
        if let d = newDay {
            day = d
            rolloverDays = 0
            epoch.day = d
        }
        guard let coordinate = f.coordinate(latField, ns, lonField, ew) else { return malformed(keeping: fix) }
        statistics.used += 1
        setPosition(coordinate, rank: Rank.rmc)
        if let kn = f.unsigned(knots) { epoch.speed = kn * 1852.0 / 3600.0 }
        if let t = f.unsigned(track) { epoch.track = t }
        return fix
    }

    /// GLL: lat, N/S, lon, E/W, time, status, FAA mode (time and status are absent before NMEA 2.0).
    private mutating func gll(_ f: inout FieldCursor) -> Fix? {
        let latField = f.next(), ns = f.next(), lonField = f.next(), ew = f.next()
        let timeField = f.next(), status = f.next(), faaMode = f.next()
        var fix: Fix?
        if !f.isEmpty(timeField) {
            guard let tod = timeOfDay(f, timeField) else { return malformed() }
            fix = beginEpoch(tod)
        } else {
            epoch.hasContent = true
        }
        guard f.isEmpty(status) || f.isChar(status, "A") || f.isChar(status, "D"), !f.isNoFixMode(faaMode) else {
            if fix != nil || !f.isEmpty(timeField) { noFix() } else { statistics.noFix += 1 }
            return fix
        }
        guard let coordinate = f.coordinate(latField, ns, lonField, ew) else {
            if f.isEmpty(latField) { statistics.noFix += 1; return fix }
            return malformed(keeping: fix)
        }
        statistics.used += 1
        setPosition(coordinate, rank: Rank.gll)
        return fix
    }

    /// GSA: A/M, mode 1/2/3, twelve satellite ids, PDOP, HDOP, VDOP.
    private mutating func gsa(_ f: inout FieldCursor) {
        _ = f.next()
        let mode = f.next()
        for _ in 0..<12 { _ = f.next() }
        _ = f.next()
        let hdop = f.next()
        guard let m = f.integer(mode), (1...3).contains(m) else {
            if f.isEmpty(mode) { statistics.noFix += 1 } else { statistics.malformed += 1 }
            return
        }
        if m == 1 {
            statistics.noFix += 1
            gsaMode = .noFix
            return
        }
        statistics.used += 1
        gsaMode = Fix.Mode(rawValue: m)
        gsaHDOP = f.unsigned(hdop)
        epoch.hasContent = true
    }

    /// GST: time, RMS, semi-major, semi-minor, orientation, σlat, σlon, σalt (metres, 1 sigma).
    private mutating func gst(_ f: inout FieldCursor) -> Fix? {
        let timeField = f.next()
        _ = f.next(); _ = f.next(); _ = f.next(); _ = f.next()
        let latSigma = f.next(), lonSigma = f.next()
        guard let tod = timeOfDay(f, timeField) else { return malformed() }
        let fix = beginEpoch(tod)
        if let sLat = f.unsigned(latSigma), let sLon = f.unsigned(lonSigma) {
            statistics.used += 1
            epoch.gstError = HorizontalError.fromGST(latitudeSigma: sLat, longitudeSigma: sLon)
        } else {
            statistics.noFix += 1
        }
        return fix
    }

    /// VTG: track true, T, track magnetic, M, knots, N, km/h, K, FAA mode.
    private mutating func vtg(_ f: inout FieldCursor) {
        let track = f.next()
        _ = f.next(); _ = f.next(); _ = f.next()
        let knots = f.next()
        _ = f.next()
        let kmh = f.next()
        _ = f.next()
        let faaMode = f.next()
        if f.isNoFixMode(faaMode) {
            statistics.noFix += 1
            return
        }
        statistics.used += 1
        epoch.hasContent = true
        if let t = f.unsigned(track) { epoch.track = t }
        if let v = f.unsigned(kmh) {
            epoch.speed = v / 3.6
        } else if let kn = f.unsigned(knots) {
            epoch.speed = kn * 1852.0 / 3600.0
        }
    }

    /// ZDA: time, day, month, four-digit year, zone. Only the date is used: some receivers stamp
    /// ZDA off the epoch (the AC12 in gpsd's corpus), so its time never opens an epoch.
    private mutating func zda(_ f: inout FieldCursor) {
        let timeField = f.next()
        let dd = f.next(), mm = f.next(), yyyy = f.next()
        // An impossible date or time (31 February, 24:00:00) is a broken sentence, never normalised.
        let tod = f.hhmmss(timeField)
        guard let d = f.integer(dd), let m = f.integer(mm), let y = f.integer(yyyy), (1980...2200).contains(y),
            CivilDate.isValid(year: y, month: m, day: d), tod != nil || f.isEmpty(timeField)
        else {
            statistics.malformed += 1
            return
        }
        statistics.used += 1
        let date = CivilDate.days(year: y, month: m, day: d)
        day = date
        rolloverDays = 0
        // The date belongs to ZDA's own time: midnight rollovers are counted from there. It
        // dates the epoch in progress only if it is stamped with that epoch's time.
        if let tod {
            lastTimeOfDay = tod
            if tod == epoch.timeOfDay { epoch.day = date }
        }
    }

    // MARK: Epochs

    /// Counts a no-fix sentence and vetoes the epoch it belongs to.
    private mutating func noFix() {
        statistics.noFix += 1
        epoch.vetoed = true
    }

    /// A no-fix sentence with its time field: it vetoes its epoch when it has a usable time (a
    /// receiver without a fix often has no time either, and then there is no epoch to veto).
    private mutating func noFix(at timeField: Range<Int>, _ f: FieldCursor) -> Fix? {
        guard let tod = timeOfDay(f, timeField) else {
            statistics.noFix += 1
            return nil
        }
        let fix = beginEpoch(tod)
        noFix()
        return fix
    }

    private mutating func malformed() -> Fix? {
        statistics.malformed += 1
        return nil
    }

    /// Counts a malformed sentence that may still have closed the previous epoch.
    private mutating func malformed(keeping fix: Fix?) -> Fix? {
        statistics.malformed += 1
        return fix
    }

    private func timeOfDay(_ f: FieldCursor, _ field: Range<Int>) -> Int? {
        f.hhmmss(field)
    }

    /// Starts a new epoch if `tod` differs from the current one; returns the finished epoch's fix.
    private mutating func beginEpoch(_ tod: Int) -> Fix? {
        if let current = epoch.timeOfDay, current == tod {
            return nil
        }
        var finished: Fix?
        if epoch.hasContent { finished = emit() }
        if let last = lastTimeOfDay, tod < last - 12 * 3_600_000 { rolloverDays += 1 }
        lastTimeOfDay = tod
        epoch = Epoch()
        epoch.timeOfDay = tod
        epoch.day = (day ?? Self.undatedDay) + rolloverDays
        epoch.hasContent = true
        return finished
    }

    private mutating func setPosition(_ c: (Double, Double), rank: Int) {
        epoch.hasContent = true
        guard rank > epoch.positionRank else { return }
        epoch.positionRank = rank
        epoch.latitude = c.0
        epoch.longitude = c.1
    }

    private mutating func emit() -> Fix? {
        guard epoch.positionRank > 0, !epoch.vetoed else { return nil }
        let time: Date
        if let tod = epoch.timeOfDay {
            time = Date(timeIntervalSince1970: Double(epoch.day) * 86_400 + Double(tod) / 1000)
        } else {
            time = lastEmittedTime ?? Date(timeIntervalSince1970: Double(day ?? Self.undatedDay) * 86_400)
        }
        let hdop = epoch.hdop ?? gsaHDOP
        let error = epoch.gstError ?? hdop.map(HorizontalError.fromHDOP)
        var mode: Fix.Mode = epoch.altitude != nil ? .threeD : .twoD
        if let m = gsaMode, m >= .twoD { mode = m }
        statistics.fixes += 1
        lastEmittedTime = time
        epoch.positionRank = 0
        return Fix(
            time: time, coordinate: Coordinate(latitude: epoch.latitude, longitude: epoch.longitude),
            mode: mode, horizontalError: error, altitude: epoch.altitude, speed: epoch.speed,
            track: epoch.track, satellites: epoch.satellites, hdop: hdop, source: .nmea)
    }
}

/// Whether any of the eight bytes of `word` is `*`, `$` or `!`: a byte equal to `c` is a zero byte of
/// `word ^ c...c`, and `(v - 0x01...01) & ~v & 0x80...80` is non-zero exactly when `v` has a zero byte.
@inline(__always)
private func holdsReserved(_ word: UInt64) -> Bool {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    func holds(_ c: UInt8) -> Bool {
        let v = word ^ (ones &* UInt64(c))
        return (v &- ones) & ~v & highs != 0
    }
    return holds(42) || holds(36) || holds(33)
}

/// The XOR of the eight bytes of `word` (the checksum of eight bytes at once; XOR ignores their order).
@inline(__always)
private func foldXOR(_ word: UInt64) -> UInt8 {
    var f = word ^ (word >> 32)
    f ^= f >> 16
    f ^= f >> 8
    return UInt8(truncatingIfNeeded: f)
}

@inline(__always)
private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case 48...57: c - 48
    case 65...70: c - 55
    case 97...102: c - 87
    default: nil
    }
}

private func isUpperAlnum(_ p: UnsafePointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
    for i in from..<to {
        let c = p[i]
        guard (65...90).contains(c) || (48...57).contains(c) else { return false }
    }
    return true
}
