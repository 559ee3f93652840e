import ArgumentParser
import Foundation
import TourAPI
import TourModel
import WalkscapeKit

/// `walkscape login`: a session with the service, kept in the config folder.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in to the tour service; the session is kept (mode 0600) and renewed as needed.",
        discussion: """
            On a terminal the email and password are asked for (the password without echo). In scripts, \
            pass --email and pipe the password with --password-stdin. There is no password flag.

            Examples:
              walkscape login
              walkscape login --email ada@example.org
              printf '%s\\n' "$PASSWORD" | walkscape login --email ada@example.org --password-stdin
            """)

    @OptionGroup var global: GlobalOptions

    @Option(
        name: .long,
        help: ArgumentHelp("The account's email (asked for on a terminal when missing).", valueName: "email"))
    var email: String?

    @Flag(name: .long, help: "Read the password from the first line of standard input.")
    var passwordStdin = false

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    func run() async throws {
        let settings = try global.settings()
        _ = try ServiceConnection.serviceURL(settings)
        let email = try PasswordPrompt.email(email)
        let password = try PasswordPrompt.password(fromStandardInput: passwordStdin, confirm: false)
        let (auth, credentials) = try await ServiceConnection.run(settings) { client in
            let auth = try await client.login(email: email, password: password)
            return (auth, try await client.session.credentials())
        }
        AccountEvents(settings: settings).record(.login, userID: auth.user?.id.nonEmpty)
        try AccountReport(
            email: auth.user?.email ?? email, userID: auth.user?.id.nonEmpty,
            sessionExpiresAt: credentials?.sessionExpiresAt
        )
        .show(json: json, headline: "Logged in as \(auth.user?.email ?? email).")
        if let note = ServiceMemory.remember(settings), !json { Console.out(note) }
    }
}

/// What login and register print: who, and until when the session lasts. Never a token.
struct AccountReport: Encodable {
    var email: String
    var userID: String?
    var sessionExpiresAt: Date?

    enum CodingKeys: String, CodingKey { case email, userID = "userId", sessionExpiresAt }

    func show(json: Bool, headline: String) throws {
        if json { return try JSONOutput.write(self) }
        var text = headline
        if let sessionExpiresAt {
            text += " The session lasts until \(HumanDate.format(sessionExpiresAt)) unless used."
        }
        Console.out(text)
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
