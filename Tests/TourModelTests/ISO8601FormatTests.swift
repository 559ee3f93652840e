import Foundation
import Testing

@testable import TourModel

/// `ISO8601.format` is written out by hand (Foundation's style loads ICU's calendar and the
/// machine's time zone the first time, about 2 ms of a short preview): it must give exactly what
/// `Date.ISO8601FormatStyle(includingFractionalSeconds: true)` gives.
struct ISO8601FormatTests {
    static func foundation(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    @Test(arguments: [
        0, 0.0005, 0.0009999, 0.9995, 0.9999999, 1.001, -0.0005, -0.001, -1.5, -86_400.25,
        951_782_400,  // 2000-02-29
        1_777_626_000.123, 1_800_000_000, 4_102_444_799.999, 4_102_444_800,  // 2100-01-01
        -2_208_988_800,  // 1900-01-01
        -62_135_596_800,  // 0001-01-01 (Foundation's Julian calendar)
        -12_219_292_800.5, -12_219_292_800, -12_219_292_799.999,  // around 1582-10-15
        253_402_300_799.999, 253_402_300_800,  // around 10000-01-01
    ])
    func matchesFoundationAtEdges(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(ISO8601.format(date) == Self.foundation(date), "\(seconds)")
    }

    @Test func matchesFoundationOnRandomDates() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            // 1600 to 2400, with sub-millisecond parts.
            let seconds = Double.random(in: -11_676_096_000...13_569_465_600, using: &generator)
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ISO8601.format(date) == Self.foundation(date), "\(seconds)")
        }
    }

    @Test func roundTripsThroughParse() {
        let date = Date(timeIntervalSince1970: 1_777_626_000.5)
        #expect(ISO8601.format(date) == "2026-05-01T09:00:00.500Z")
        #expect(ISO8601.parse(ISO8601.format(date)).map { abs($0.timeIntervalSince(date)) < 0.001 } == true)
    }
}
