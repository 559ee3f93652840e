import Positioning
import Testing

/// gpsd's accuracy figures reach us as doubles from the network: NaN means "not reported", and
/// anything that does not make a finite, non-negative estimate must count as not reported too
/// (an infinite estimate trapped the live status line converting it to Int).
@Suite struct HorizontalErrorTests {
    @Test func gpsdFiguresBecomeOneSigmaDRMS() {
        #expect(HorizontalError.fromGPSD(epx: 6, epy: 8, eph: .nan, hdop: .nan) == 5)
        #expect(HorizontalError.fromGPSD(epx: .nan, epy: .nan, eph: 10, hdop: .nan) == 5)
        #expect(HorizontalError.fromGPSD(epx: .nan, epy: .nan, eph: .nan, hdop: 2) == 10)
        #expect(HorizontalError.fromGPSD(epx: .nan, epy: .nan, eph: .nan, hdop: .nan) == nil)
    }

    @Test func absurdGPSDFiguresCountAsNotReported() {
        // epx² overflows to infinity: fall back to the next figure, or nothing.
        #expect(HorizontalError.fromGPSD(epx: 1e200, epy: 1, eph: 10, hdop: .nan) == 5)
        #expect(HorizontalError.fromGPSD(epx: 1e200, epy: 1, eph: .infinity, hdop: .nan) == nil)
        #expect(HorizontalError.fromGPSD(epx: .nan, epy: .nan, eph: -4, hdop: 1e308) == nil)
    }
}
