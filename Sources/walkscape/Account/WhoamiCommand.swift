import ArgumentParser
import Foundation
import TourAPI
import TourModel
import WalkscapeKit

/// `walkscape whoami`: the account the saved session belongs to, as the service knows it.
struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show the logged-in account.",
        discussion: """
            Asks the service (GET /auth/me), renewing the session if needed. Exits 77 when not logged in.

            Examples:
              walkscape whoami
              walkscape whoami --json
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the account as JSON.")
    var json = false

    struct Report: Encodable {
        var id: String
        var email: String
        var name: String?
        var preferredLanguage: String?
        var mailingListOptIn: Bool?
        var createdAt: Date?
        var sessionExpiresAt: Date?
    }

    func run() async throws {
        let settings = try global.settings()
        let (me, credentials) = try await ServiceConnection.run(settings) { client in
            (try await client.me(), try await client.session.credentials())
        }
        let report = Report(
            id: me.id, email: me.email, name: me.name, preferredLanguage: me.preferredLanguage,
            mailingListOptIn: me.mailingListOptIn, createdAt: me.createdAt,
            sessionExpiresAt: credentials?.sessionExpiresAt)
        if json { return try JSONOutput.write(report) }
        var lines = [me.name.map { "\(me.email) (\($0))" } ?? me.email]
        if let language = me.preferredLanguage { lines.append("language: \(language)") }
        if let created = me.createdAt { lines.append("account since: \(HumanDate.format(created))") }
        if let end = credentials?.sessionExpiresAt {
            lines.append("session until: \(HumanDate.format(end)) unless used")
        }
        Console.out(lines.joined(separator: "\n"))
    }
}
