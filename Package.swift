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
        .executable(name: "walkscape-server", targets: ["walkscape-server"]),
        .executable(name: "fuzz-nmea", targets: ["FuzzNMEA"]),
        .executable(name: "fuzz-srt", targets: ["FuzzSRT"]),
        .executable(name: "fuzz-progress", targets: ["FuzzProgress"]),
        .executable(name: "fuzz-tour", targets: ["FuzzTour"]),
        .executable(name: "fuzz-audio", targets: ["FuzzAudio"]),
        .executable(name: "fuzz-manifest", targets: ["FuzzManifest"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // walkscape-server only (its NIO stack never enters the walker's binary). Hummingbird's
        // default traits pull in swift-configuration, which nothing here uses.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // TourAPI, the walker's HTTP client (the server's tests drive it over real HTTP with it too).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        // NIOSOCKS only: the SOCKS proxy's refusals, which AsyncHTTPClient passes on as they are.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        // System libraries: module map + shim.h each. Only GPSD and Playback import them.
        .systemLibrary(
            name: "CGPS", pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]),
        .systemLibrary(
            name: "CMPG123", pkgConfig: "libmpg123",
            providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(
            name: "CALSA", pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]),
        // EBU R128 loudness and true peak (libebur128): the one loudness of a tour's narrations.
        .systemLibrary(
            name: "CEBUR128", pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]),
        // FFmpeg's libraries (5.1 in Debian 12): every narration format but MPEG audio.
        // Loaded at first use (dlopen), not linked: see its shim.h.
        .systemLibrary(
            name: "CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev"])]),

        // The version (debian/changelog) and commit, written before each build by the plugin below.
        .target(name: "BuildInfo", swiftSettings: swiftSettings, plugins: ["BuildInfoPlugin"]),
        .plugin(name: "BuildInfoPlugin", capability: .buildTool()),

        // How files a user or a tour names are read (regular files only) and written (atomically,
        // or through to a device or FIFO). Below everything, so every module opens files one way.
        .target(name: "FileAccess", swiftSettings: swiftSettings),
        .target(name: "TourModel", dependencies: ["FileAccess"], swiftSettings: swiftSettings),
        .target(name: "Positioning", dependencies: ["TourModel", "FileAccess"], swiftSettings: swiftSettings),
        .target(name: "GPSD", dependencies: ["Positioning", "TourModel", "CGPS"], swiftSettings: swiftSettings),
        // libFuzzer targets (scripts/fuzz.sh): the weak LLVMFuzzerRunDriver lives in CFuzzerShim.
        .target(name: "CFuzzerShim"),
        .executableTarget(
            name: "FuzzNMEA", dependencies: ["Positioning", "TourModel", "CFuzzerShim"],
            swiftSettings: swiftSettings),
        // Sample loops the Swift compiler leaves scalar, in C with SSE2 (a mono narration's upmix).
        .target(name: "CSampleKernels"),
        .target(
            name: "Playback",
            dependencies: ["TourModel", "FileAccess", "CMPG123", "CALSA", "CFFmpeg", "CEBUR128", "CSampleKernels"],
            swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzSRT", dependencies: ["Playback", "CFuzzerShim"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "FuzzAudio", dependencies: ["Playback", "TourModel", "CFuzzerShim"], swiftSettings: swiftSettings),
        // The walk's rules, pure: no Playback, no C library, no files (docs/architecture.md).
        .target(name: "Walk", dependencies: ["TourModel", "Positioning"], swiftSettings: swiftSettings),
        // The walk run live (gpsd, ALSA, progress on disk) and simulated (preview).
        .target(
            name: "WalkRuntime", dependencies: ["Walk", "TourModel", "Positioning", "GPSD", "Playback", "FileAccess"],
            swiftSettings: swiftSettings),
        // What a curator sees: lint, the map, the preview report.
        .target(
            name: "Curation",
            dependencies: ["Walk", "WalkRuntime", "TourModel", "Positioning", "Playback", "FileAccess"],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "FuzzProgress", dependencies: ["Walk", "Positioning", "TourModel", "CFuzzerShim"],
            swiftSettings: swiftSettings),
        .executableTarget(name: "FuzzTour", dependencies: ["TourModel", "CFuzzerShim"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "FuzzManifest", dependencies: ["TourModel", "CFuzzerShim"], swiftSettings: swiftSettings),
        // The HTTP client of the service. NIO types stay inside it: its interface speaks TourModel,
        // Foundation and its own request/response values.
        .target(
            name: "TourAPI",
            dependencies: [
                "TourModel", "FileAccess",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings
        ),
        // The content store: the catalog (GRDB), blobs named by SHA-256, downloads, atomic switches.
        // It judges no audio (no Playback): the CLI passes a sniffer in.
        .target(
            name: "TourStore",
            dependencies: [
                "TourModel", "TourAPI", "FileAccess",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite itself, for the completion's read that must not write (InstalledNames).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The analytics outbox (GRDB) and the batcher that flushes it through TourAPI.
        .target(
            name: "Analytics",
            dependencies: [
                "TourModel", "TourAPI", "FileAccess",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // walkscape's application layer: settings, credentials, the service connection, installing
        // tours, analytics wiring, matching tour names, doctor's checks. The executable beside it is
        // argument parsing and printing; tests call this layer in-process.
        .target(
            name: "WalkscapeKit",
            dependencies: [
                "BuildInfo", "TourModel", "FileAccess", "Positioning", "GPSD", "Playback", "Walk", "WalkRuntime",
                "TourAPI", "TourStore", "Analytics",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "walkscape",
            dependencies: [
                "WalkscapeKit", "TourModel", "FileAccess", "Positioning", "GPSD", "Playback", "Walk", "WalkRuntime",
                "Curation", "TourAPI", "TourStore", "Analytics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // The Sonic Walkscape API over tour folders: routes, state (GRDB), signing, faults.
        .target(
            name: "WalkscapeServer",
            dependencies: [
                "TourModel", "FileAccess",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // The request parser's errors (a broken chunked body is the client's fault: 400).
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // A request's parts as each connection's first handler sees them (ConnectionGate).
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "walkscape-server",
            dependencies: [
                "WalkscapeServer", "TourModel", "BuildInfo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // Shared by every test target: temporary homes, a real gpsd on a pty, fixture MP3s.
        .target(
            name: "TestSupport", dependencies: ["TourModel"], path: "Tests/TestSupport",
            swiftSettings: swiftSettings),
        // Shared by the tests of what waits between attempts: a clock that records its sleeps.
        .target(
            name: "ServiceTestSupport", dependencies: ["TourAPI"], path: "Tests/ServiceTestSupport",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "FileAccessTests", dependencies: ["FileAccess", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TourModelTests", dependencies: ["TourModel", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PositioningTests", dependencies: ["Positioning", "GPSD", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PlaybackTests", dependencies: ["Playback", "TourModel", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "WalkTests",
            dependencies: [
                "Walk", "WalkRuntime", "Curation", "GPSD", "Playback", "Positioning", "FileAccess", "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "WalkscapeServer", "TourModel", "FileAccess", "TestSupport", "walkscape-server",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TourAPITests",
            dependencies: [
                "TourAPI", "TourModel", "TestSupport", "ServiceTestSupport",
                // A proxy's failures as the HTTP client hands them over (ProxyFailureTests).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "StoreTests",
            dependencies: [
                "TourStore", "TourModel", "TourAPI", "TestSupport", "ServiceTestSupport", "walkscape", "WalkscapeKit",
                "walkscape-server",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "AnalyticsTests",
            dependencies: [
                "Analytics", "TourAPI", "TourModel", "TestSupport", "ServiceTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "TestSupport", "TourModel", "walkscape", "WalkscapeKit", "Walk", "WalkRuntime", "GPSD", "Positioning",
                "TourAPI", "Analytics", "Playback",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
