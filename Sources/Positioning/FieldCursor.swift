import Foundation
import TourModel

/// Walks the comma-separated fields of one sentence in place.
struct FieldCursor {
    let p: UnsafePointer<UInt8>
    /// Index of the comma before the next field (or `end` when there are no more).
    var position: Int
    let end: Int

    /// The next field's byte range; empty once the sentence has run out (missing trailing
    /// fields read as empty, which is how short, older sentence versions behave).
    mutating func next() -> Range<Int> {
        guard position < end else { return end..<end }
        let start = position + 1
        var i = start
        while i < end, p[i] != 44 { i += 1 }
        position = i
        return start..<i
    }

    func isEmpty(_ r: Range<Int>) -> Bool { r.isEmpty }

    func isChar(_ r: Range<Int>, _ c: Unicode.Scalar) -> Bool {
        r.count == 1 && p[r.lowerBound] == UInt8(ascii: c)
    }

    /// FAA mode indicators (NMEA 2.3+) that mean "no real position": `N` not valid, `S` simulator,
    /// `M` manual input.
    func isNoFixMode(_ r: Range<Int>) -> Bool {
        guard r.count == 1 else { return false }
        let c = p[r.lowerBound]
        return c == UInt8(ascii: "N") || c == UInt8(ascii: "S") || c == UInt8(ascii: "M")
    }

    func integer(_ r: Range<Int>) -> Int? {
        guard !r.isEmpty, r.count <= 9 else { return nil }
        var v = 0
        for i in r {
            let d = Int(p[i]) - 48
            guard d >= 0, d <= 9 else { return nil }
            v = v * 10 + d
        }
        return v
    }

    /// A decimal number: optional sign, digits, optional fraction. No exponents (NMEA has none).
    func decimal(_ r: Range<Int>) -> Double? {
        guard let (negative, integer, fraction, scale) = parts(r) else { return nil }
        let v = Double(integer) + Double(fraction) / powersOfTen[scale]
        return negative ? -v : v
    }

    /// A decimal that must not be negative (DOPs, sigmas, speeds, tracks): a negative one is
    /// garbage and reads as absent rather than poisoning the error estimate.
    func unsigned(_ r: Range<Int>) -> Double? {
        guard let v = decimal(r), v >= 0 else { return nil }
        return v
    }

    /// Splits `-123.4567` into sign, 123, 4567 and 4, keeping full precision of either part.
    private func parts(_ r: Range<Int>) -> (Bool, Int, Int, Int)? {
        guard !r.isEmpty else { return nil }
        var i = r.lowerBound
        var negative = false
        if p[i] == 45 || p[i] == 43 {
            negative = p[i] == 45
            i += 1
        }
        var integer = 0, fraction = 0, scale = 0, digits = 0
        while i < r.upperBound, p[i] != 46 {
            let d = Int(p[i]) - 48
            guard d >= 0, d <= 9, digits < 15 else { return nil }
            integer = integer * 10 + d
            digits += 1
            i += 1
        }
        if i < r.upperBound {  // at the '.'
            i += 1
            while i < r.upperBound {
                let d = Int(p[i]) - 48
                guard d >= 0, d <= 9 else { return nil }
                if scale < 15 {
                    fraction = fraction * 10 + d
                    scale += 1
                }
                i += 1
            }
        }
        guard digits > 0 || scale > 0 else { return nil }
        return (negative, integer, fraction, scale)
    }

    /// `ddmm.mmmm` / `dddmm.mmmm` plus hemisphere letters, validated to WGS84 ranges.
    func coordinate(_ lat: Range<Int>, _ ns: Range<Int>, _ lon: Range<Int>, _ ew: Range<Int>) -> (Double, Double)? {
        guard let latitude = angle(lat, maxDegrees: 90), let longitude = angle(lon, maxDegrees: 180) else { return nil }
        let latSign: Double, lonSign: Double
        if isChar(ns, "N") { latSign = 1 } else if isChar(ns, "S") { latSign = -1 } else { return nil }
        if isChar(ew, "E") { lonSign = 1 } else if isChar(ew, "W") { lonSign = -1 } else { return nil }
        return (latitude * latSign, longitude * lonSign)
    }

    private func angle(_ r: Range<Int>, maxDegrees: Int) -> Double? {
        guard let (negative, integer, fraction, scale) = parts(r), !negative else { return nil }
        let degrees = integer / 100
        let wholeMinutes = integer % 100
        guard wholeMinutes < 60, degrees <= maxDegrees else { return nil }
        let minutes = Double(wholeMinutes) + Double(fraction) / powersOfTen[scale]
        let value = Double(degrees) + minutes / 60
        guard value <= Double(maxDegrees) else { return nil }
        return value
    }

    /// `hhmmss` with an optional fraction, as milliseconds since midnight.
    func hhmmss(_ r: Range<Int>) -> Int? {
        guard r.count >= 6 else { return nil }
        guard let hh = twoDigits(r.lowerBound), let mm = twoDigits(r.lowerBound + 2),
            let ss = twoDigits(r.lowerBound + 4)
        else { return nil }
        // 23:59:60 is a leap second; keep it rather than drop a real fix. Any other :60 is not a time.
        guard CivilDate.isValidTime(hour: hh, minute: mm, second: ss) else { return nil }
        var millis = 0
        if r.count > 6 {
            guard p[r.lowerBound + 6] == 46 else { return nil }
            var scale = 1000
            for i in (r.lowerBound + 7)..<r.upperBound {
                let d = Int(p[i]) - 48
                guard (0...9).contains(d) else { return nil }
                scale /= 10
                millis += d * scale
            }
        }
        return ((hh * 60 + mm) * 60 + ss) * 1000 + millis
    }

    private func twoDigits(_ i: Int) -> Int? {
        let d1 = Int(p[i]) - 48, d2 = Int(p[i + 1]) - 48
        guard d1 >= 0, d1 <= 9, d2 >= 0, d2 <= 9 else { return nil }
        return d1 * 10 + d2
    }

    /// RMC's `ddmmyy` as days since 1970, with the century rule in `NMEAParser`'s doc comment.
    func ddmmyy(_ r: Range<Int>) -> Int? {
        guard r.count == 6, let n = integer(r) else { return nil }
        let dd = n / 10000, mm = n / 100 % 100, yy = n % 100
        let year = yy >= 80 ? 1900 + yy : 2000 + yy
        guard CivilDate.isValid(year: year, month: mm, day: dd) else { return nil }
        return CivilDate.days(year: year, month: mm, day: dd)
    }
}

let powersOfTen: [Double] = (0...15).map { pow(10.0, Double($0)) }
