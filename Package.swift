// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "walkscape",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "walkscape", targets: ["walkscape"]),
        .executable(name: "fuzz-nmea", targets: ["FuzzNMEA"]),
        .executable(name: "fuzz-srt", targets: ["FuzzSRT"]),
        .executable(name: "fuzz-progress", targets: ["FuzzProgress"]),
        .executable(name: "fuzz-tour", targets: ["FuzzTour"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // System libraries: module map + shim.h each. Only Positioning and Playback import them.
        .systemLibrary(name: "CGPS", pkgConfig: "libgps",
                       providers: [.apt(["libgps-dev"])]),
        .systemLibrary(name: "CMPG123", pkgConfig: "libmpg123",
                       providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa",
                       providers: [.apt(["libasound2-dev"])]),
        // Until the content store (GRDB) arrives, `doctor` reads the SQLite version through this.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),

        // How files a user or a tour names are read (regular files only) and written (atomically,
        // or through to a device or FIFO). Below everything, so every module opens files one way.
        .target(name: "FileAccess", swiftSettings: swiftSettings),
        .target(name: "TourModel", dependencies: ["FileAccess"], swiftSettings: swiftSettings),
        .target(name: "Positioning", dependencies: ["TourModel", "FileAccess", "CGPS"], swiftSettings: swiftSettings),
        // libFuzzer targets (scripts/fuzz.sh): the weak LLVMFuzzerRunDriver lives in CFuzzerShim.
        .target(name: "CFuzzerShim"),
        .executableTarget(name: "FuzzNMEA", dependencies: ["Positioning", "TourModel", "CFuzzerShim"],
                          swiftSettings: swiftSettings),
        .target(name: "Playback", dependencies: ["TourModel", "FileAccess", "CMPG123", "CALSA"], swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzSRT", dependencies: ["Playback", "CFuzzerShim"], swiftSettings: swiftSettings),
        .target(name: "Walk", dependencies: ["TourModel", "FileAccess", "Positioning", "Playback"], swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzProgress", dependencies: ["Walk", "Positioning", "TourModel", "CFuzzerShim"],
                          swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzTour", dependencies: ["TourModel", "CFuzzerShim"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "walkscape",
            dependencies: [
                "TourModel", "FileAccess", "Positioning", "Playback", "Walk", "CSQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // Shared by every test target: temporary homes, a real gpsd on a pty, fixture MP3s.
        .target(name: "TestSupport", dependencies: ["TourModel"], path: "Tests/TestSupport",
                swiftSettings: swiftSettings),
        .testTarget(name: "FileAccessTests", dependencies: ["FileAccess", "TestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "TourModelTests", dependencies: ["TourModel", "TestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "PositioningTests", dependencies: ["Positioning", "TestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "PlaybackTests", dependencies: ["Playback", "TestSupport"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "WalkTests",
                    dependencies: ["Walk", "TestSupport",
                                   .product(name: "PropertyBased", package: "swift-property-based")],
                    swiftSettings: swiftSettings),
        .testTarget(name: "CLITests", dependencies: ["TestSupport", "TourModel", "walkscape", "Walk", "Positioning"],
                    swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
