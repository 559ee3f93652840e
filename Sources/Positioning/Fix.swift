import Foundation
import TourModel

/// One position report, whatever produced it (an NMEA epoch, a GPX point, a gpsd TPV).
public struct Fix: Sendable, Hashable {
    public enum Mode: Int, Sendable, Hashable, Comparable, Codable {
        case noFix = 1
        case twoD = 2
        case threeD = 3
        public static func < (lhs: Mode, rhs: Mode) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public enum Source: String, Sendable, Hashable, Codable {
        case nmea, gpx, gpsd, synthetic
    }

    /// Time of the fix, as the receiver stamped it (never the time it was read).
    public var time: Date
    public var coordinate: Coordinate
    public var mode: Mode
    /// Horizontal error estimate in metres (about 1 sigma per axis combined; see
    /// `HorizontalError` for how each source derives it). Nil when nothing says.
    public var horizontalError: Double?
    public var altitude: Double?
    /// Speed over ground, m/s.
    public var speed: Double?
    /// Course over ground, degrees true.
    public var track: Double?
    public var satellites: Int?
    public var hdop: Double?
    public var source: Source

    public init(
        time: Date, coordinate: Coordinate, mode: Mode = .threeD, horizontalError: Double? = nil,
        altitude: Double? = nil, speed: Double? = nil, track: Double? = nil, satellites: Int? = nil,
        hdop: Double? = nil, source: Source = .synthetic
    ) {
        self.time = time
        self.coordinate = coordinate
        self.mode = mode
        self.horizontalError = horizontalError
        self.altitude = altitude
        self.speed = speed
        self.track = track
        self.satellites = satellites
        self.hdop = hdop
        self.source = source
    }
}
