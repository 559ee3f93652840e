import Foundation
import TestSupport
import Testing

/// A stand-in for the service that answers with numbers no tour folder may hold (Python's
/// http.server on a loopback port, answers from a JSON map of path to body): `tours`, `show` and
/// `download` refuse them in one line, exit 76, and install nothing; they used to trap (exit 132).
@Suite(.serialized)
struct HostileNumberTests {
    static let service = #"""
        import http.server, json, sys, threading
        answers = {}
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass
            def do_GET(self):
                body = answers.get(self.path.split("?")[0])
                if body is None:
                    self.send_response(404)
                    body = {"statusCode": 404, "message": "Not Found"}
                else:
                    self.send_response(200)
                data = json.dumps(body).encode() if not isinstance(body, str) else body.encode()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # SELF in the answers is this stand-in's own address.
        text = open(sys.argv[1]).read().replace("SELF", "127.0.0.1:%d" % server.server_address[1])
        answers.update(json.loads(text))
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    static let id = "7b0c1a9e-0000-4000-8000-00000000beef"

    /// The answers of a one-point free tour, with `summary`, `detail`, `point` and `file` fields
    /// replaced as given (raw JSON text).
    static func answers(summary: String = "", detail: String = "", point: String = "", file: String = "") -> String {
        """
        {"/tours": [{"id":"\(id)","slug":"hostile","title":{"en":"Hostile"},"descriptionPreview":{"en":""},
           "city":"Bologna","durationMinutes":30,"distanceKm":1.2,"difficulty":"facile","languages":["en"],
           "isProtected":false\(summary)}],
         "/tours/\(id)": {"id":"\(id)","slug":"hostile","title":"Hostile","description":"","languages":["en"],
           "isProtected":false\(detail)},
         "/tours/\(id)/points": [{"id":"p1","order":1,"title":"One","description":"",
           "location":{"lat":44.49,"lng":11.34},"triggerRadiusMeters":30\(point)}],
         "/tours/\(id)/manifest": {"tourId":"\(id)","language":"en","version":"1",
           "audio":[{"pointId":"p1","order":1,"fileUrl":"http://127.0.0.1:9/m.mp3","fileSizeBytes":1000\(file)}],
           "subtitles":[],"images":[]}}
        """
    }

    func withService(_ answers: String, _ body: (String, TemporaryDirectory) throws -> Void) throws {
        let home = try TemporaryDirectory()
        let script = try home.write("service.py", Self.service)
        let map = try home.write("answers.json", answers)
        let python = try #require(which("python3"))
        let child = try ChildProcess(python, [script.path, map.path])
        defer { child.signal(SIGTERM) }
        let deadline = Date().addingTimeInterval(10)
        while !child.output.contains("\n"), Date() < deadline { usleep(10_000) }
        let port = try #require(Int(child.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        try body("http://127.0.0.1:\(port)", home)
    }

    func expectRefused(
        _ arguments: [String], api: String, home: TemporaryDirectory, naming field: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try runWalkscape(arguments + ["--api-url", api], home: home, timeout: 60)
        #expect(result.status == 76, "\(arguments): \(result.status) \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("walkscape: "), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(field), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test(arguments: ["1e19", "\"nan\"", "\"-inf\"", "9223372036854775807"])
    func aFileSizeNoFolderMayHoldIsRefusedByDownloadAndNothingIsInstalled(_ size: String) throws {
        // The manifest's own size comes last in the object, so it wins over the 1000 before it.
        try withService(Self.answers(file: ",\"fileSizeBytes\":\(size)")) { api, home in
            try expectRefused(["download", "hostile"], api: api, home: home, naming: "fileSizeBytes")
            let listing = try runWalkscape(["tours", "--installed"], home: home)
            #expect(listing.stdout.contains("No tours installed"), "\(listing.stdout)")
        }
    }

    @Test(arguments: ["\"NaN\"", "\"inf\"", "1e308"])
    func minutesNoFolderMayHoldAreRefusedByToursAndShow(_ minutes: String) throws {
        try withService(
            Self.answers(summary: ",\"durationMinutes\":\(minutes)", detail: ",\"durationMinutes\":\(minutes)")
        ) { api, home in
            try expectRefused(["tours"], api: api, home: home, naming: "durationMinutes")
            try expectRefused(["show", "hostile"], api: api, home: home, naming: "durationMinutes")
        }
    }

    @Test func aHugeTriggerRadiusIsRefusedByShowAndDownload() throws {
        try withService(Self.answers(point: ",\"triggerRadiusMeters\":1e308")) { api, home in
            try expectRefused(["show", "hostile"], api: api, home: home, naming: "triggerRadiusMeters")
            try expectRefused(["download", "hostile"], api: api, home: home, naming: "triggerRadiusMeters")
        }
    }

    @Test func aMediaLinkThatIsNotHTTPIsTheServicesBadDataNotAUsageError() throws {
        try withService(Self.answers(file: ",\"fileUrl\":\"file:///etc/passwd\"")) { api, home in
            try expectRefused(["download", "hostile"], api: api, home: home, naming: "file:// URL")
        }
    }

    @Test func mediaTheHostRefusesEvenWithFreshLinksIsBadDataNotALoginProblem() throws {
        try withService(Self.answers(file: ",\"fileUrl\":\"http://SELF/gone.mp3\"")) { api, home in
            try expectRefused(
                ["download", "hostile"], api: api, home: home, naming: "(HTTP 404) even with a fresh link")
        }
    }

    /// Answers /tours with 300 bytes, one every 0.1 s: never silent long enough for a read
    /// timeout, 30 s in all.
    static let dripping = #"""
        import http.server, json, sys, time
        body = json.dumps([{"id": "x", "slug": "slow", "title": {"en": "S" * 150}, "languages": ["en"],
                            "isProtected": False, "pad": " " * 100}]).encode()
        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    for i in range(len(body)):
                        self.wfile.write(body[i:i + 1])
                        self.wfile.flush()
                        time.sleep(0.1)
                except (BrokenPipeError, ConnectionResetError):
                    pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    @Test func theTimeoutBoundsAnAnswerDrippedAByteAtATime() throws {
        let home = try TemporaryDirectory()
        let script = try home.write("drip.py", Self.dripping)
        let python = try #require(which("python3"))
        let child = try ChildProcess(python, [script.path])
        defer { child.signal(SIGTERM) }
        let deadline = Date().addingTimeInterval(10)
        while !child.output.contains("\n"), Date() < deadline { usleep(10_000) }
        let port = try #require(Int(child.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let started = Date()
        let result = try runWalkscape(
            ["tours", "--api-url", "http://127.0.0.1:\(port)", "--timeout", "0.3"], home: home, timeout: 60)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 75, "\(result.status): \(result.stderr)")
        #expect(result.stderr.contains("did not arrive whole within 0.3 s"), "\(result.stderr)")
        // Every attempt is cut at 0.3 s (with the pauses between attempts), far from the 30 s it
        // drips, though a byte comes every 0.1 s.
        #expect(elapsed < 15, "took \(elapsed) s")
    }
}
