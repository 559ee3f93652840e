import Foundation
import GPSD
import Positioning
import Testing
import TourModel
import Walk
import WalkRuntime
import WalkscapeKit

@testable import walkscape

/// The live walk's status area, drawn from literal statuses.
struct StatusViewTests {
    static let origin = Coordinate(latitude: 43.7731, longitude: 11.2560)
    static let tour = PlayableTour(
        id: "t", slug: "t", language: "en", title: "Florence",
        points: [
            PlayablePoint(id: "a", order: 1, coordinate: origin, triggerRadiusMeters: 30, title: "Duomo"),
            PlayablePoint(
                id: "b", order: 2, coordinate: origin.destination(distance: 420, bearing: 135),
                triggerRadiusMeters: 25, title: "Orsanmichele"),
        ])

    func status(fixAt coordinate: Coordinate? = nil, error: Double = 4) -> LiveWalkStatus {
        var s = LiveWalkStatus(
            tour: Self.tour, progress: WalkProgress(tourID: "t", language: "en", pointIDs: ["a", "b"]))
        s.progress.points[0].status = .played
        s.progress.nextIndex = 1
        if let coordinate {
            s.gps = .connected
            s.lastFix = Fix(
                time: Date(timeIntervalSince1970: 0), coordinate: coordinate, mode: .threeD,
                horizontalError: error, satellites: 9)
        }
        return s
    }

    @Test func showsGPSQualityAndTheNextPointsDistanceAndDirection() {
        let lines = StatusView(width: 80, color: false).render(status(fixAt: Self.origin))
        #expect(lines[0] == "Florence — 1/2 heard")
        #expect(lines[1] == "GPS  3D fix · ±4 m · 9 sats")
        #expect(lines[2] == "Next 2. Orsanmichele — 420 m SE")
        #expect(lines[3] == "Now  silence")
    }

    @Test func aPointStoodInBeforeTheRouteGetsThereSaysItPlaysLaterAndOffRouteIsShown() {
        var s = status(fixAt: Self.tour.points[1].coordinate)
        #expect(StatusView(width: 120, color: false).render(s)[2] == "Next 2. Orsanmichele — 0 m N (inside)")
        s.nextPointReached = false
        s.offRoute = 62
        let lines = StatusView(width: 120, color: false).render(s)
        #expect(lines[2] == "Next 2. Orsanmichele — 0 m N (here, but later in the tour: it plays when you come back)")
        #expect(lines[1] == "GPS  3D fix · ±4 m · 9 sats · off the route (62 m)")
    }

    @Test func saysWhenThereIsNoGPSDOrNoFix() {
        var s = status()
        #expect(StatusView(width: 80, color: false).render(s)[1] == "GPS  connecting to gpsd…")
        s.gps = .noGPSD
        #expect(StatusView(width: 80, color: false).render(s)[1].hasPrefix("GPS  no gpsd — waiting for it to return"))
        s.gps = .waitingForFix
        #expect(StatusView(width: 80, color: false).render(s)[1] == "GPS  no fix yet — waiting for the receiver")
    }

    @Test func showsNarrationWithElapsedAndTotalAndTheSubtitle() {
        var s = status(fixAt: Self.origin)
        s.nowPlaying = .init(point: Self.tour.points[0], elapsed: 65.4, duration: 150)
        s.subtitle = "Brunelleschi's dome\nrises above us"
        s.progress.isPaused = true
        let lines = StatusView(width: 80, color: false).render(s)
        #expect(lines[0] == "Florence — 1/2 heard  [paused]")
        #expect(lines[3] == "Now  1. Duomo  1:05 / 2:30")
        #expect(lines[4] == "     Brunelleschi's dome" && lines[5] == "     rises above us")
    }

    @Test func fitsTheTerminalWidthCountingOnlyVisibleCharacters() {
        let narrow = StatusView(width: 12, color: true).render(status(fixAt: Self.origin))
        for line in narrow {
            let visible = line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
            #expect(visible.count <= 12, "\(visible)")
        }
        #expect(narrow[0].contains("\u{1B}[1m"))  // colour when asked
    }

    @Test func noColorMeansNoEscapes() {
        let lines = StatusView(width: 80, color: false, prompt: "Quit the walk?").render(status(fixAt: Self.origin))
        #expect(!lines.joined().contains("\u{1B}"))
        #expect(lines.contains("Quit the walk?"))
    }

    @Test func compassAndDistanceWording() {
        #expect(StatusView.compass(0) == "N" && StatusView.compass(22.4) == "N" && StatusView.compass(22.6) == "NE")
        #expect(StatusView.compass(359) == "N" && StatusView.compass(200) == "S" && StatusView.compass(290) == "W")
        #expect(StatusView.distance(999.4) == "999 m" && StatusView.distance(1520) == "1.5 km")
        #expect(StatusView.clock(0) == "0:00" && StatusView.clock(3599.9) == "59:59")
    }
}
