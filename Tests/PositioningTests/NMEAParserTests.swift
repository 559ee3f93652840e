import Foundation
import Positioning
import Testing
import TourModel

/// `$BODY*HH` with the right checksum.
func sentence(_ body: String) -> String {
    let sum = body.utf8.reduce(UInt8(0), ^)
    return "$" + body + "*" + String(format: "%02X", sum)
}

/// Parses `lines` and returns every fix plus the final counters.
func parse(_ lines: [String]) -> ([Fix], NMEAStatistics) {
    var parser = NMEAParser()
    var fixes: [Fix] = []
    for line in lines { if let f = parser.parse(line) { fixes.append(f) } }
    if let f = parser.finish() { fixes.append(f) }
    #expect(parser.statistics.isConsistent)
    return (fixes, parser.statistics)
}

private func date(_ text: String) -> Date {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return f.date(from: text)!
}

@Suite struct NMEAParserTests {
    static let gga = "GPGGA,123519.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
    static let rmc = "GPRMC,123519.00,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"

    @Test func combinesGGAAndRMCOfOneEpochIntoOneFix() throws {
        let (fixes, stats) = parse([
            sentence(Self.gga), sentence(Self.rmc), sentence("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"),
        ])
        try #require(fixes.count == 1)
        let fix = fixes[0]
        #expect(fix.time == date("1994-03-23T12:35:19.000Z"))
        #expect(abs(fix.coordinate.latitude - (48 + 7.038 / 60)) < 1e-12)
        #expect(abs(fix.coordinate.longitude - (11 + 31.0 / 60)) < 1e-12)
        #expect(fix.mode == .threeD)
        #expect(fix.altitude == 545.4)
        #expect(fix.satellites == 8)
        #expect(fix.hdop == 0.9)
        #expect(fix.horizontalError == 0.9 * HorizontalError.hdopFactor)
        #expect(abs(fix.speed! - 22.4 * 1852 / 3600) < 1e-12)
        #expect(fix.track == 84.4)
        #expect(fix.source == .nmea)
        #expect(stats.used == 3)
        #expect(stats.fixes == 1)
    }

    @Test func acceptsAnyTalker() {
        for talker in ["GP", "GN", "GL", "GA", "BD", "GB", "GQ", "IN"] {
            let (fixes, _) = parse([sentence(talker + String(Self.gga.dropFirst(2)))])
            #expect(fixes.count == 1, "talker \(talker)")
        }
    }

    @Test func wrongChecksumIsRejectedAndCounted() {
        let good = sentence(Self.gga)
        let bad = String(good.dropLast(2)) + (good.hasSuffix("00") ? "01" : "00")
        let (fixes, stats) = parse([bad])
        #expect(fixes.isEmpty)
        #expect(stats.badChecksum == 1)
        #expect(stats.rejected == ["badChecksum": 1])
    }

    @Test func lowercaseChecksumDigitsAreAccepted() {
        let good = sentence(Self.rmc)
        let (fixes, _) = parse([
            good.lowercased().replacingOccurrences(of: "$gprmc", with: "$GPRMC")
                .replacingOccurrences(of: ",a,", with: ",A,").replacingOccurrences(of: ",n,", with: ",N,")
                .replacingOccurrences(of: ",e,", with: ",E,").replacingOccurrences(of: ",w", with: ",W")
        ])
        #expect(fixes.count == 1)
    }

    /// The checksum is taken eight bytes at a time up to the word that holds the `*` (or a `$` or
    /// `!`, which restart the sentence): the `*` at every offset within a word, and a restart at
    /// every offset, give what a byte-by-byte reading gives.
    @Test func checksumAndRestartsHoldAtEveryOffsetWithinAWord() {
        for extra in 0..<17 {
            // Empty trailing fields move the `*` one byte at a time.
            let body = Self.gga + String(repeating: ",", count: extra)
            let good = sentence(body)
            #expect(parse([good]).0.count == 1, "'*' after \(body.utf8.count) bytes")
            let flipped = String(good.dropLast(2)) + String(format: "%02X", body.utf8.reduce(UInt8(0), ^) ^ 1)
            let (none, stats) = parse([flipped])
            #expect(none.isEmpty && stats.badChecksum == 1, "a wrong checksum after \(body.utf8.count) bytes")
            // A sentence cut off by a later one on the same line: only the later one counts, and
            // its checksum starts after its own `$`.
            let cut = "$" + String(Self.rmc.prefix(extra))
            #expect(parse([cut + good]).0.count == 1, "a restart after \(extra) bytes")
            let (encapsulated, counted) = parse([
                "$" + String(Self.gga.prefix(extra)) + "!AIVDM,1,1,,A,13aG?P0P00PD;88MD5MTDww@2<0L,0*71"
            ])
            #expect(
                encapsulated.isEmpty && counted.unsupported == 1 && counted.badChecksum == 0, "'!' after \(extra) bytes"
            )
        }
    }

    @Test func missingChecksumIsAccepted() {
        let (fixes, stats) = parse(["$" + Self.gga])
        #expect(fixes.count == 1)
        #expect(stats.badChecksum == 0)
    }

    @Test func rmcStatusVGivesNoPosition() {
        let (fixes, stats) = parse([sentence("GPRMC,123519.00,V,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")])
        #expect(fixes.isEmpty)
        #expect(stats.noFix == 1)
    }

    @Test func ggaQualityZeroGivesNoPosition() {
        let (fixes, stats) = parse([sentence("GPGGA,123519.00,4807.038,N,01131.000,E,0,08,0.9,545.4,M,46.9,M,,")])
        #expect(fixes.isEmpty)
        #expect(stats.noFix == 1)
    }

    @Test func aNoFixSentenceVetoesItsEpoch() {
        let (fixes, _) = parse([sentence(Self.gga), sentence("GPRMC,123519.00,V,4807.038,N,01131.000,E,0,0,230394,,")])
        #expect(fixes.isEmpty)
    }

    @Test func faaModeNIsNoFix() {
        let (fixes, stats) = parse([sentence("GNRMC,123519.00,A,4807.038,N,01131.000,E,0.1,,230394,,,N")])
        #expect(fixes.isEmpty)
        #expect(stats.noFix == 1)
    }

    @Test func emptyFieldsGiveNoPositionNotACrash() {
        let (fixes, stats) = parse([
            sentence("GPGGA,,,,,,0,,,,,,,,"), sentence("GPRMC,,V,,,,,,,,,,N"),
            sentence("GPGLL,,,,,,V,N"), sentence("GPGSA,A,1,,,,,,,,,,,,,,,"),
            sentence("GPVTG,,,,,,,,,N"),
        ])
        #expect(fixes.isEmpty)
        #expect(stats.malformed == 0)
        #expect(stats.noFix == 5)
    }

    @Test func gsaDecidesTheModeAndSuppliesHDOP() throws {
        // GSA says 2D although GGA has an altitude (an altitude held from an earlier 3D fix).
        let (fixes, _) = parse([sentence(Self.gga), sentence("GNGSA,A,2,04,05,09,,,,,,,,,,3.1,2.2,2.1")])
        try #require(fixes.count == 1)
        #expect(fixes[0].mode == .twoD)
        // RMC alone: a position without altitude or GSA is 2D, and HDOP comes from the last GSA.
        let (rmcOnly, _) = parse([sentence("GPGSA,A,3,04,05,09,12,,,,,,,,,2.5,1.3,2.1"), sentence(Self.rmc)])
        try #require(rmcOnly.count == 1)
        #expect(rmcOnly[0].mode == .threeD)
        #expect(rmcOnly[0].hdop == 1.3)
        let (bare, _) = parse([sentence(Self.rmc)])
        #expect(bare.first?.mode == .twoD)
        #expect(bare.first?.horizontalError == nil)
    }

    @Test func gnsGivesAPositionUnlessEveryConstellationSaysN() throws {
        let (fixes, _) = parse([sentence("GNGNS,101010.00,4807.038,N,01131.000,E,AAN,14,0.7,545.4,46.9,,,V")])
        try #require(fixes.count == 1)
        #expect(fixes[0].satellites == 14)
        #expect(fixes[0].hdop == 0.7)
        #expect(fixes[0].altitude == 545.4)
        let (none, stats) = parse([sentence("GNGNS,101010.00,4807.038,N,01131.000,E,NNN,00,,,,,,V")])
        #expect(none.isEmpty)
        #expect(stats.noFix == 1)
    }

    @Test func anOldUntimedGLLJoinsTheEpochInProgress() throws {
        // NMEA 2.0 GLL has no time or status; GGA wins the position, GLL adds nothing new.
        let (fixes, stats) = parse([sentence(Self.gga), sentence("GPGLL,4807.040,N,01131.002,E")])
        try #require(fixes.count == 1)
        #expect(abs(fixes[0].coordinate.latitude - (48 + 7.038 / 60)) < 1e-12)
        #expect(stats.used == 2)
    }

    @Test func gllAloneGivesATwoDFix() throws {
        let (fixes, _) = parse([sentence("GPGLL,4916.45,N,12311.12,W,225444,A,A")])
        try #require(fixes.count == 1)
        #expect(fixes[0].mode == .twoD)
        #expect(abs(fixes[0].coordinate.latitude - (49 + 16.45 / 60)) < 1e-12)
        #expect(abs(fixes[0].coordinate.longitude + (123 + 11.12 / 60)) < 1e-12)
    }

    @Test func gstGivesTheHorizontalError() throws {
        let (fixes, _) = parse([sentence(Self.gga), sentence("GPGST,123519.00,1.2,3.0,2.0,45.0,3.0,4.0,5.0")])
        try #require(fixes.count == 1)
        #expect(fixes[0].horizontalError == 5.0)
    }

    @Test func vtgSpeedInKilometresPerHour() throws {
        let (fixes, _) = parse([sentence(Self.gga), sentence("GPVTG,054.7,T,034.4,M,005.5,N,010.8,K,A")])
        try #require(fixes.count == 1)
        #expect(fixes[0].speed == 10.8 / 3.6)
        #expect(fixes[0].track == 54.7)
    }

    @Test func twoDigitYearsFollowTheCenturyRule() throws {
        func year(_ yy: String) throws -> Int {
            let (fixes, _) = parse([sentence("GPRMC,000000,A,4807.038,N,01131.000,E,0,0,0101\(yy),,")])
            try #require(fixes.count == 1)
            return Calendar(identifier: .gregorian).dateComponents(
                in: TimeZone(identifier: "UTC")!, from: fixes[0].time
            ).year!
        }
        #expect(try year("80") == 1980)
        #expect(try year("99") == 1999)
        #expect(try year("00") == 2000)
        #expect(try year("26") == 2026)
        #expect(try year("79") == 2079)
    }

    @Test func anImpossibleDateMakesTheSentenceMalformedAndIsNeverCarriedIntoTheNextMonth() throws {
        func rmc(_ ddmmyy: String, time: String = "120000") -> String {
            sentence("GPRMC,\(time),A,4807.038,N,01131.000,E,0,0,\(ddmmyy),,")
        }
        // 31 February 2026 used to become 3 March.
        let (bad, badStats) = parse([rmc("310226")])
        #expect(bad.isEmpty)
        #expect(badStats.malformed == 1 && badStats.used == 0)
        for impossible in ["290226", "310426", "000126", "011326", "320126"] {
            #expect(parse([rmc(impossible)]).0.isEmpty, "\(impossible)")
        }
        #expect(try #require(parse([rmc("290224")]).0.first).time == date("2024-02-29T12:00:00.000Z"))  // a leap year
        #expect(try #require(parse([rmc("280226")]).0.first).time == date("2026-02-28T12:00:00.000Z"))
        // ZDA, the other date sentence: the bad date is malformed and dates nothing.
        let (zda, zdaStats) = parse([sentence("GPZDA,120000.00,31,02,2026,00,00"), sentence(Self.gga)])
        #expect(zdaStats.malformed == 1)
        #expect(try #require(zda.first).time == date("1970-01-01T12:35:19.000Z"))
        #expect(parse([sentence("GPZDA,250000.00,21,11,2026,00,00")]).1.malformed == 1)
    }

    @Test func timesOfDayOutOfRangeAreMalformedAndOnlyTheLeapSecondIsSixty() throws {
        func gga(_ time: String) -> String { sentence(Self.gga.replacingOccurrences(of: "123519.00", with: time)) }
        for impossible in ["240000", "126000", "123460", "995959"] {
            let (fixes, stats) = parse([gga(impossible)])
            #expect(fixes.isEmpty && stats.malformed == 1, "\(impossible)")
        }
        // 23:59:60 is a leap second (POSIX counts it as the next midnight), kept rather than dropped.
        let (leap, _) = parse([sentence("GPRMC,235960,A,4807.038,N,01131.000,E,0,0,311216,,")])
        #expect(try #require(leap.first).time == date("2017-01-01T00:00:00.000Z"))
    }

    @Test func zdaGivesTheDateForGGAOnlyReceivers() throws {
        let (fixes, _) = parse([sentence("GPZDA,123519.00,21,11,2026,00,00"), sentence(Self.gga)])
        try #require(fixes.count == 1)
        #expect(fixes[0].time == date("2026-11-21T12:35:19.000Z"))
    }

    @Test func undatedTimesFallOnTheEpochDayAndRollOverAtMidnight() throws {
        let (fixes, _) = parse([
            sentence("GPGGA,235959.50,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            sentence("GPGGA,000000.50,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        ])
        try #require(fixes.count == 2)
        #expect(fixes[0].time == Date(timeIntervalSince1970: 86_399.5))
        #expect(fixes[1].time == Date(timeIntervalSince1970: 86_400.5))
    }

    @Test func midnightWithRMCFirstInEachEpoch() throws {
        let (fixes, _) = parse([
            sentence("GPRMC,235959.00,A,4807.038,N,01131.000,E,0,0,211126,,"),
            sentence(Self.gga.replacingOccurrences(of: "123519.00", with: "235959.00")),
            sentence("GPRMC,000000.00,A,4807.038,N,01131.000,E,0,0,221126,,"),
            sentence(Self.gga.replacingOccurrences(of: "123519.00", with: "000000.00")),
        ])
        try #require(fixes.count == 2)
        #expect(fixes[0].time == date("2026-11-21T23:59:59.000Z"))
        #expect(fixes[1].time == date("2026-11-22T00:00:00.000Z"))
    }

    @Test func midnightWithZDAFirstInEachEpoch() throws {
        let (fixes, _) = parse([
            sentence("GPZDA,235959.00,21,11,2026,00,00"),
            sentence(Self.gga.replacingOccurrences(of: "123519.00", with: "235959.00")),
            sentence("GPZDA,000000.00,22,11,2026,00,00"),
            sentence(Self.gga.replacingOccurrences(of: "123519.00", with: "000000.00")),
            sentence(Self.gga.replacingOccurrences(of: "123519.00", with: "000001.00")),
        ])
        try #require(fixes.count == 3)
        #expect(fixes[0].time == date("2026-11-21T23:59:59.000Z"))
        #expect(fixes[1].time == date("2026-11-22T00:00:00.000Z"))
        #expect(fixes[2].time == date("2026-11-22T00:00:01.000Z"))
    }

    @Test func separateEpochsGiveSeparateFixes() {
        let (fixes, _) = parse([
            sentence(Self.gga), sentence(Self.gga.replacingOccurrences(of: "123519.00", with: "123520.00")),
            sentence(Self.gga.replacingOccurrences(of: "123519.00", with: "123521.00")),
        ])
        #expect(
            fixes.map { $0.time.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) } == [
                45_319, 45_320, 45_321,
            ])
    }

    @Test func toleratesLineEndingsBlankLinesCommentsAndNoise() {
        var parser = NMEAParser()
        var count = 0
        let text =
            "# a logger's comment\r\n\r\n" + sentence(Self.gga) + "\r\r\n" + "\u{1}\u{2}garbage" + sentence(Self.rmc)
            + "\r\n"
            + "no sentence here\n" + sentence("GPGSV,3,1,12,28,14,150,41") + "\n"
        // Split bytes, not Characters: Swift treats "\r\n" as one Character.
        for line in Array(text.utf8).split(separator: 10, omittingEmptySubsequences: false) {
            if Array(line).withUnsafeBufferPointer({ parser.parse(line: $0) }) != nil { count += 1 }
        }
        if parser.finish() != nil { count += 1 }
        let s = parser.statistics
        #expect(count == 1)
        #expect(s.comments == 1)
        #expect(s.blankLines == 2)  // the empty line and the one after the final newline
        #expect(s.notASentence == 1)
        #expect(s.used == 2)
        #expect(s.unsupported == 1)
        #expect(s.isConsistent)
    }

    @Test func theLastDollarStartsTheSentenceAndTrailingBytesAreIgnored() throws {
        let good = sentence(Self.gga)
        let (fixes, stats) = parse([
            "$GPRMC,1235\u{7}\u{0}" + good,
            sentence(Self.gga.replacingOccurrences(of: "123519", with: "123520")) + " 1700000000.25",
        ])
        #expect(fixes.count == 2)
        #expect(stats.used == 2)
        let (none, bad) = parse([String(good.dropLast(1))])  // `*H`: a cut-off checksum
        #expect(none.isEmpty)
        #expect(bad.malformed == 1)
    }

    @Test func proprietaryAndUnknownSentencesAreSkippedAndCounted() {
        let (fixes, stats) = parse([
            sentence("PGRME,15.0,M,22.5,M,27.0,M"), sentence("PSRF151,01"),
            sentence("GPHDT,74.79,T"), "!AIVDM,1,1,,B,B3`gaQ000062Pc7RIt403wkUoP06,0*4B",
            sentence(Self.gga),
        ])
        #expect(fixes.count == 1)
        #expect(stats.proprietary == 2)
        #expect(stats.unsupported == 2)
    }

    @Test func malformedNumbersAndRangesAreRejected() {
        let (fixes, stats) = parse([
            sentence("GPGGA,123519,9107.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            sentence("GPGGA,123520,4867.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            sentence("GPGGA,123521,48x7.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            sentence("GPGGA,123522,4807.038,Q,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
            sentence("GPGGA,253522,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        ])
        #expect(fixes.isEmpty)
        #expect(stats.malformed == 5)
    }

    /// Found by fuzz-nmea: a negative HDOP made a negative error estimate.
    @Test func negativeDOPsAndSigmasReadAsAbsent() throws {
        let (fixes, _) = parse([
            sentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,-0.9,545.4,M,46.9,M,,"),
            sentence("GPGST,123519,1.2,3.0,2.0,45.0,-3.0,4.0,5.0"),
        ])
        try #require(fixes.count == 1)
        #expect(fixes[0].horizontalError == nil)
        #expect(fixes[0].hdop == nil)
    }

    @Test func southAndWestAreNegative() throws {
        let (fixes, _) = parse([sentence("GNGGA,101010,3351.5000,S,15112.6000,W,1,10,0.8,10,M,0,M,,")])
        try #require(fixes.count == 1)
        #expect(abs(fixes[0].coordinate.latitude + (33 + 51.5 / 60)) < 1e-12)
        #expect(abs(fixes[0].coordinate.longitude + (151 + 12.6 / 60)) < 1e-12)
    }
}
