/// How each source's accuracy figures become `Fix.horizontalError`.
///
/// `horizontalError` is a 1-sigma two-dimensional error in metres (DRMS: the root of the summed
/// per-axis variances). The filter's 50 m bound is meant against that scale. Sources differ:
///
/// - NMEA `GST` carries the 1-sigma latitude and longitude errors directly: DRMS =
///   √(σlat² + σlon²). This is the best figure a receiver gives and wins when present.
/// - Otherwise NMEA `GGA`/`GSA` and GPX `<hdop>` give only HDOP, a geometry factor without a
///   unit. DRMS = HDOP × UERE, where UERE (user equivalent range error) is the pseudorange
///   error; 5 m is the usual 1-sigma figure for a standalone civilian L1 receiver, and it is the
///   factor used here (`hdopFactor`).
/// - gpsd's `epx`/`epy` (and `eph`) are 95 % confidence figures, about 2 sigma: DRMS =
///   √(epx² + epy²) / 2, else `eph` / 2, else HDOP × 5 m like NMEA. The walk uses them only where
///   gpsd passes on no sentence of the fix's instant: otherwise the sentences' figure, as the
///   preview reads it (`GPSDSource.fix`).
public enum HorizontalError {
    /// Metres of 1-sigma pseudorange error (UERE) per unit of HDOP.
    public static let hdopFactor = 5.0
    /// gpsd's 95 % figures are divided by this to come to about 1 sigma.
    public static let gpsdConfidenceDivisor = 2.0

    public static func fromGST(latitudeSigma: Double, longitudeSigma: Double) -> Double {
        (latitudeSigma * latitudeSigma + longitudeSigma * longitudeSigma).squareRoot()
    }

    public static func fromHDOP(_ hdop: Double) -> Double { hdop * hdopFactor }

    /// gpsd's figures, any of which may be NaN (libgps's "not reported"), negative or absurd; a
    /// figure that does not make a finite, non-negative estimate counts as not reported.
    public static func fromGPSD(epx: Double, epy: Double, eph: Double, hdop: Double) -> Double? {
        func usable(_ value: Double) -> Double? { value.isFinite && value >= 0 ? value : nil }
        if epx.isFinite, epy.isFinite, let e = usable((epx * epx + epy * epy).squareRoot() / gpsdConfidenceDivisor) {
            return e
        }
        if let e = usable(eph / gpsdConfidenceDivisor) { return e }
        if hdop.isFinite, hdop > 0, let e = usable(fromHDOP(hdop)) { return e }
        return nil
    }
}
