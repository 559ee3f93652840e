import Testing

@testable import Positioning

@Suite struct ErrorHistogramTests {
    @Test func anAbsurdEstimateLandsInTheLastBinWithoutTrapping() {
        // An estimate from a GPX <hdop>1e300</hdop> trapped converting to a bin index.
        var histogram = ErrorHistogram()
        histogram.add(5e300)
        histogram.add(.greatestFiniteMagnitude)
        #expect(histogram.quantile(0.5) == .greatestFiniteMagnitude)
        #expect(histogram.max == .greatestFiniteMagnitude)
    }

    @Test func quantilesToATenthOfAMetre() {
        var histogram = ErrorHistogram()
        #expect(histogram.quantile(0.5) == nil)
        for value in 1...100 { histogram.add(Double(value) / 10) }  // 0.1 ... 10.0 m
        #expect(histogram.max == 10)
        let median = histogram.quantile(0.5)!
        let p95 = histogram.quantile(0.95)!
        #expect(abs(median - 5.0) <= 0.1 + 1e-9)
        #expect(abs(p95 - 9.5) <= 0.1 + 1e-9)
        #expect(histogram.quantile(1) == 10)
    }

    @Test func valuesBeyondAKilometreStillCountAndCapAtTheMaximum() {
        var histogram = ErrorHistogram()
        histogram.add(2)
        histogram.add(5_000)
        #expect(histogram.quantile(1) == 5_000)
        #expect(abs(histogram.quantile(0.5)! - 2) <= 0.1 + 1e-9)
    }
}
