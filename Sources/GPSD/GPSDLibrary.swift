import CGPS
import Positioning

/// The libgps API this build speaks.
public enum GPSDLibrary {
    public static var apiVersion: String { "\(GPSD_API_MAJOR_VERSION).\(GPSD_API_MINOR_VERSION)" }
}
