import Foundation
import TestSupport
import Testing
import TourAPI
import TourModel

/// Credentials never follow a redirect to another origin, over real HTTP: the real `walkscape`
/// logged in to the real `walkscape-server`, then pointed at a small HTTP service (Python's
/// http.server on two loopback ports) that answers `/auth/me` with a redirect and writes down
/// which requests carried an `Authorization` header.
@Suite(.serialized)
struct RedirectTests {
    /// Two listeners in one process. `first` redirects its first /auth/me to `second` (another
    /// port, so another origin) and the next one to itself. Both answer a redirected request with
    /// a user named after the listener.
    static let redirector = #"""
        import http.server, json, sys, threading
        log_path = sys.argv[1]
        lock = threading.Lock()
        redirects = [0]
        def make(name, other):
            class Handler(http.server.BaseHTTPRequestHandler):
                def log_message(self, *args):
                    pass
                def do_GET(self):
                    auth = self.headers.get("Authorization")
                    with lock, open(log_path, "a") as log:
                        log.write("%s %s %s\n" % (name, self.path, "auth" if auth else "none"))
                    if self.path.startswith("/auth/me") and "hop" not in self.path:
                        with lock:
                            redirects[0] += 1
                            to = other if redirects[0] == 1 else name
                        target = "http://127.0.0.1:%d/auth/me?hop=1" % servers[to].server_address[1]
                        self.send_response(307)
                        self.send_header("Location", target)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
                    body = json.dumps({"id": "u-1", "email": "%s@example.org" % name}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
            return Handler
        servers = {}
        servers["first"] = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make("first", "second"))
        servers["second"] = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make("second", "first"))
        for s in servers.values():
            threading.Thread(target=s.serve_forever, daemon=True).start()
        print("%d %d" % (servers["first"].server_address[1], servers["second"].server_address[1]), flush=True)
        threading.Event().wait()
        """#

    @Test func theSessionIsNotSentAcrossARedirectToAnotherOriginButIsWithinTheSameOne() async throws {
        let scratch = try TemporaryDirectory()
        var options = ServerProcess.Options()
        options.tours = [TestPaths.demoTour]
        let server = try await ServerProcess.start(options)
        let walker = try ServiceWalker(server)
        #expect(try walker.register("ada@example.org", password: "correct horse battery").status == 0)

        try scratch.write("redirector.py", Self.redirector)
        let log = scratch.file("requests.log")
        let python = try ChildProcess(
            URL(fileURLWithPath: "/usr/bin/python3"), [scratch.file("redirector.py").path, log.path])
        defer { python.signal(SIGTERM) }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !python.output.contains("\n") { try await Task.sleep(for: .milliseconds(20)) }
        let ports = python.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(ports.count == 2, "\(python.output)")
        let first = "http://127.0.0.1:\(ports[0])"

        // The saved session, as if it had been issued by the redirecting service.
        var credentials = try #require(walker.credentials)
        credentials.service = first
        try WalkscapeJSON.encoder().encode(credentials).write(to: walker.credentialsURL)

        let across = try walker.run(["whoami", "--json"], environment: ["WALKSCAPE_API_URL": first])
        #expect(across.status == 0, "\(across.stderr)")
        #expect(across.stdout.contains("second@example.org"), "\(across.stdout)")
        let within = try walker.run(["whoami", "--json"], environment: ["WALKSCAPE_API_URL": first])
        #expect(within.status == 0, "\(within.stderr)")
        #expect(within.stdout.contains("first@example.org"), "\(within.stdout)")

        let requests = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(
            requests == [
                "first /auth/me auth", "second /auth/me?hop=1 none",
                "first /auth/me auth", "first /auth/me?hop=1 auth",
            ], "\(requests)")
        walker.expectNoTokenPrinted()
    }
}
