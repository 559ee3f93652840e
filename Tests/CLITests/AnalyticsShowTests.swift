import Analytics
import Foundation
import TestSupport
import Testing
import TourModel

/// `walkscape analytics show` streams what the outbox holds: every event once, oldest first, the
/// JSON one array however long (it is written a piece at a time past 64 kB).
struct AnalyticsShowTests {
    @Test func aLongOutboxIsShownWholeInOrderAsOneArrayAndAsLines() throws {
        let home = try TemporaryDirectory()
        // The old journal, imported into the outbox at the first command: 1,500 events (about
        // 600 kB of JSON shown, so the array is written in several pieces).
        let ids = (0..<1500).map { _ in UUID().uuidString.lowercased() }
        let lines = try ids.enumerated().map { n, id in
            let event = AnalyticsEvent(
                name: "login", anonymousID: "journal",
                timestamp: Date(timeIntervalSince1970: 1_800_000_000 + Double(n)),
                properties: ["eventId": .string(id), "platform": "linux", "n": .number(Double(n))])
            return String(decoding: try WalkscapeJSON.encode(event, dialect: .live), as: UTF8.self) + "\n"
        }
        try home.write("state/outbox.jsonl", lines.joined())
        let json = try runWalkscape(["analytics", "show", "--json"], home: home)
        #expect(json.status == 0, "\(json.stderr)")
        let shown = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [[String: Any]])
        #expect(shown.compactMap { ($0["properties"] as? [String: Any])?["eventId"] as? String } == ids)
        #expect(json.stdout.hasPrefix("[\n  {\n    \"anonymousId\" : \"journal\",\n") && json.stdout.hasSuffix("\n]\n"))
        let text = try runWalkscape(["analytics", "show"], home: home)
        let rows = text.stdout.split(separator: "\n")
        #expect(rows.count == 1500 && rows.allSatisfy { $0.contains("  login") })
        #expect(rows.first?.hasPrefix(ISO8601.format(Date(timeIntervalSince1970: 1_800_000_000))) == true)
        let empty = try TemporaryDirectory()
        #expect(try runWalkscape(["analytics", "show", "--json"], home: empty).stdout == "[\n\n]\n")
        #expect(try runWalkscape(["analytics", "show"], home: empty).stdout == "No analytics events are kept here.\n")
    }

    /// An outbox in a state folder that cannot be written (a read-only file system; another
    /// user's home) is shown from a copy, said so, where `status` and `show` failed: "cannot be
    /// opened as the analytics outbox (its folder will not take it (Read-only file system))"
    /// (SQLite's log needs a shared-memory file beside the outbox). The copy is gone after.
    @Test(.enabled(if: Mounts.available)) func anOutboxThatCannotBeWrittenIsShownFromACopy() throws {
        let scratch = try TemporaryDirectory()
        let mount = scratch.file("ro")
        try Mounts.tmpfs(at: mount, size: "4m")
        defer { Mounts.unmount(mount) }
        let home = mount.appendingPathComponent("home")
        let ids = (0..<3).map { _ in UUID().uuidString.lowercased() }
        do {  // closed before the file system is made read-only
            let outbox = try Outbox.open(at: home.appendingPathComponent("state/analytics.sqlite"))
            _ = try outbox.record(
                ids.map {
                    Recording(
                        event: AnalyticsEvent(
                            name: "app_open", anonymousID: "kept", properties: ["eventId": .string($0)]),
                        origin: .local, offline: nil)
                })
            outbox.checkpoint()
        }
        try Mounts.remountReadOnly(mount)
        let temporary = scratch.file("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let env = ["WALKSCAPE_HOME": home.path, "TMPDIR": temporary.path]
        let status = try runWalkscape(["analytics", "status"], environment: env)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("Local only (tour folders, never sent): 3"), "\(status.stdout)")
        #expect(
            status.stderr == "note: \(home.path)/state cannot be written here: showing a copy of analytics.sqlite\n",
            "\(status.stderr)")
        let shown = try runWalkscape(["analytics", "show", "--json"], environment: env)
        #expect(shown.status == 0, "\(shown.stderr)")
        let events = try #require(try JSONSerialization.jsonObject(with: shown.stdoutData) as? [[String: Any]])
        #expect(events.compactMap { ($0["properties"] as? [String: Any])?["eventId"] as? String } == ids)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    }

    @Test func eventsLeftForAServiceThatMovedAreMovedToTheConfiguredOneAndSent() async throws {
        let home = try TemporaryDirectory()
        let server = try await ServerProcess.start()
        // Events recorded while the service listened on another port.
        let old = "http://127.0.0.1:1"
        let outbox = try Outbox.open(at: home.file("state/analytics.sqlite"))
        let ids = (0..<3).map { _ in UUID().uuidString.lowercased() }
        _ = try outbox.record(
            ids.map {
                Recording(
                    event: AnalyticsEvent(name: "app_open", anonymousID: "moved", properties: ["eventId": .string($0)]),
                    origin: .service(old), offline: false)
            })
        let env = ["WALKSCAPE_API_URL": server.baseURL]
        let status = try runWalkscape(["analytics", "status"], home: home, environment: env)
        #expect(
            status.stdout.contains(
                "Waiting for \(old) (not the configured service): 3; if the service moved there, walkscape analytics move \(old)"
            ), "\(status.stdout)")
        #expect(try runWalkscape(["sync"], home: home, environment: env).stdout.hasPrefix("Sent 0 events"))
        let moved = try runWalkscape(["analytics", "move", old], home: home, environment: env)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout == "Moved 3 events from \(old) to \(server.baseURL); walkscape sync sends them.\n")
        let sync = try runWalkscape(["sync"], home: home, environment: env)
        #expect(sync.stdout.hasPrefix("Sent 3 events; 0 waiting"), "\(sync.stdout) \(sync.stderr)")
        #expect(try server.events().events.filter { $0.event.anonymousID == "moved" }.map(\.eventID) == ids)
        let again = try runWalkscape(["analytics", "move", old], home: home, environment: env)
        #expect(again.stdout == "No events were kept for \(old).\n")
        let none = try runWalkscape(["analytics", "move", old], home: home)
        #expect(none.status == 64 && none.stderr.hasPrefix("walkscape: no API URL is configured"))
        await server.stop()
    }
}
