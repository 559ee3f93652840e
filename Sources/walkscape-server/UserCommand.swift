import ArgumentParser
import Foundation
import WalkscapeServer

/// `walkscape-server user add EMAIL`: an account, without going through /auth/register.
struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Manage the server's accounts.", subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add an account (the password is read from stdin unless --password is given).",
            discussion: """
                Examples:
                  walkscape-server user add walker@example.org --password 'correct horse'
                  echo 'correct horse' | walkscape-server user add walker@example.org --name Ada --language it
                """)

        @Argument(help: "The account's email address.")
        var email: String

        @Option(help: "The password (at least 8 characters).")
        var password: String?

        @Option(help: "The display name.")
        var name: String?

        @Option(help: "Preferred language.")
        var language = "en"

        @Flag(name: .customLong("mailing-list"), help: "Opted in to the mailing list.")
        var mailingList = false

        @OptionGroup var data: DataOption

        @Option(name: .customLong("bcrypt-cost"), help: .hidden)
        var bcryptCost = 10

        func validate() throws {
            // As serve: cost 31 would take hours of CPU for one hash.
            guard (4...31).contains(bcryptCost) else { throw ValidationError("--bcrypt-cost must be within 4...31") }
        }

        func run() async throws {
            let password = self.password ?? readLine(strippingNewline: true) ?? ""
            let admin = try Admin(dataDirectory: try data.directory())
            let user = try await admin.addUser(
                email: email, password: password, name: name, preferredLanguage: language,
                mailingListOptIn: mailingList, bcryptCost: bcryptCost)
            AdminOutput.line("added user \(user.email) (\(user.id))")
        }
    }
}
