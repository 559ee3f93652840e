import ArgumentParser

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Check gpsd, audio, storage and the API configuration.")
    func run() async throws {}
}
