import ArgumentParser
import Foundation
import TourAPI
import WalkscapeKit

/// `walkscape logout`: forgets the local session (the service has no logout endpoint).
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Forget the saved session (deletes the local credentials).",
        discussion: """
            Examples:
              walkscape logout
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the result as JSON.")
    var json = false

    struct Report: Encodable { var loggedOut: Bool; var email: String? }

    func run() async throws {
        let settings = try global.settings()
        let file = CredentialsFile(url: settings.paths.credentialsFile)
        // A damaged file is removed all the same: that is what logging out is for.
        let email = (try? file.load())?.email
        let existed = file.permissions != nil
        do { try file.remove() } catch { throw AppError(error) }
        if json { return try JSONOutput.write(Report(loggedOut: existed, email: email)) }
        Console.out(
            existed
                ? "Logged out\(email.map { " \($0)" } ?? ""): the session is forgotten on this machine."
                : "Not logged in.")
    }
}
