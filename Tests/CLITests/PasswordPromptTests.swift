import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The password prompt on a real pseudo-terminal: nothing typed is echoed, and the terminal gets
/// its echo back however the prompt ends.
@Suite(.serialized)
struct PasswordPromptTests {
    func echoIsOn(_ child: ChildProcess) throws -> Bool {
        var settings = termios()
        let fd = try #require(child.terminalFD)
        #expect(tcgetattr(fd, &settings) == 0)
        return settings.c_lflag & tcflag_t(ECHO) != 0
    }

    func login(_ home: TemporaryDirectory, port: Int) throws -> ChildProcess {
        try ChildProcess(
            TestPaths.walkscape, ["login", "--api-url", "http://127.0.0.1:\(port)", "--home", home.path],
            environment: ["NO_COLOR": "1"], pty: true)
    }

    @Test func thePasswordIsNotEchoedAndEchoComesBack() async throws {
        let home = try TemporaryDirectory()
        let child = try login(home, port: try freeTCPPort())
        #expect(await child.waitForOutput("Email: "))
        child.send("ada@example.org\n")
        #expect(await child.waitForOutput("Password: "))
        child.send("not-on-screen-42\n")
        let status = await child.wait()
        #expect(status == 69)  // nothing listens on the port: the prompt is what is under test
        #expect(child.output.contains("ada@example.org"))
        #expect(!child.output.contains("not-on-screen-42"))
        #expect(try echoIsOn(child))
    }

    @Test func ctrlCAtThePromptRestoresEcho() async throws {
        let home = try TemporaryDirectory()
        let child = try login(home, port: try freeTCPPort())
        #expect(await child.waitForOutput("Email: "))
        child.send("ada@example.org\n")
        #expect(await child.waitForOutput("Password: "))
        try await Task.sleep(for: .milliseconds(100))
        #expect(try !echoIsOn(child))
        child.signal(SIGINT)
        #expect(await child.wait() == 130)
        #expect(try echoIsOn(child))
    }

    @Test func withoutATerminalThePasswordMustComeFromStdin() throws {
        let home = try TemporaryDirectory()
        let r = try runWalkscape(
            ["login", "--api-url", "http://127.0.0.1:9", "--email", "ada@example.org"], home: home)
        #expect(r.status == 64)
        #expect(r.stderr == "walkscape: no terminal to ask for the password: pipe it with --password-stdin\n")
        let noEmail = try runWalkscape(
            ["login", "--api-url", "http://127.0.0.1:9", "--password-stdin"], home: home,
            stdin: Data("pw\n".utf8))
        #expect(noEmail.stderr == "walkscape: no terminal to ask for the email: pass --email\n")
    }
}
