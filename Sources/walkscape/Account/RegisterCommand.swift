import ArgumentParser
import Foundation
import TourAPI
import TourModel
import WalkscapeKit

/// `walkscape register`: a new account, logged in at once.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Create an account on the tour service and log in.",
        discussion: """
            On a terminal the email is asked for, and the password twice without echo. In scripts, pass \
            --email and pipe the password with --password-stdin. The service wants at least 8 characters.

            Examples:
              walkscape register
              walkscape register --email ada@example.org --name Ada --language it
              printf '%s\\n' "$PASSWORD" | walkscape register --email ada@example.org --password-stdin
            """)

    @OptionGroup var global: GlobalOptions

    @Option(
        name: .long,
        help: ArgumentHelp("The account's email (asked for on a terminal when missing).", valueName: "email"))
    var email: String?

    @Option(name: .long, help: ArgumentHelp("Your name, as the service shows it.", valueName: "name"))
    var name: String?

    @Option(
        name: [.customShort("l"), .long], help: ArgumentHelp("Preferred language (it, fr, en, ...).", valueName: "code")
    )
    var language: String?

    @Flag(name: .long, help: "Subscribe to the service's mailing list.")
    var mailingList = false

    @Flag(name: .long, help: "Read the password from the first line of standard input.")
    var passwordStdin = false

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    func run() async throws {
        let settings = try global.settings()
        _ = try ServiceConnection.serviceURL(settings)
        let email = try PasswordPrompt.email(email)
        let password = try PasswordPrompt.password(fromStandardInput: passwordStdin, confirm: true)
        let registration = Registration(
            email: email, password: password, name: name, preferredLanguage: language,
            mailingListOptIn: mailingList ? true : nil)
        let (auth, credentials) = try await ServiceConnection.run(settings) { client in
            let auth = try await client.register(registration)
            return (auth, try await client.session.credentials())
        }
        AccountEvents(settings: settings).record(.signup, userID: auth.user?.id.nonEmpty)
        try AccountReport(
            email: auth.user?.email ?? email, userID: auth.user?.id.nonEmpty,
            sessionExpiresAt: credentials?.sessionExpiresAt
        )
        .show(json: json, headline: "Registered and logged in as \(auth.user?.email ?? email).")
        if let note = ServiceMemory.remember(settings), !json { Console.out(note) }
    }
}
